"""The restore drill, short: orders through the real stack, `pg_dump` while they flow, more
orders, a few more with the workers stopped, `pg_restore` into the same database, then the
runbook's steps (docs/operations.md). Nothing from before the dump is lost, every email the
restored database sends again goes under its original key and the provider (the simulator)
delivers one message per key; the orders the restore lost are listed; the invoice numbers
emailed after the restore point are voided, and no number goes to a second document. The
verdict's own self-tests (a key delivered twice, a void left out fail it) are
tests/unit/test_restore_verdict.py and tests/unit/test_restore_numbers.py."""

import json
import re

import pytest

from tools.drill.restore import RestoreConfig, restore_drill_run
from tools.drill.restore_report import restore_report_markdown, restore_report_write
from tools.drill.restore_void import VOID_STEP


@pytest.mark.tool_check  # `make test-tools` and CI: a few minutes of the whole stack
@pytest.mark.timeout(600)
def test_a_short_restore_drill_loses_nothing_from_before_the_dump_and_resends_under_the_original_keys(
    tmp_path,
):
    # when
    report = restore_drill_run(RestoreConfig(orders=60, rate=20))
    json_path, markdown_path = restore_report_write(report, tmp_path)
    print(restore_report_markdown(report))
    # then
    assert report.outcome == "PASSED", report.problems
    c = report.counts
    assert c["orders_asked"] == c["orders_placed"] == 60
    assert c["orders_queued_at_the_stop_asked"] == c["orders_queued_at_the_stop_placed"] == 3
    assert c["orders_placed_before_the_dump"] > 0
    assert report.verdict["lost_before_dump"] == []
    # every email the restored database sent again: under its original key, replayed, not sent
    assert c["emails_resent_after_the_restore"] > 0
    assert c["resends_under_the_original_key"] == c["resends_replayed_by_the_provider"]
    assert c["resends_under_the_original_key"] == c["emails_resent_after_the_restore"]
    assert c["messages_per_key"] == {"1": c["emails_accepted_in_all"]}
    assert (c["keys_delivered_twice"], c["duplicates_to_a_customer"]) == (0, 0)
    assert (c["lost_emails_of_restored_orders"], c["unfinished_emails"]) == (0, 0)
    # the orders the restore lost: the ones after the dump it no longer has, and the 3 whose
    # events sat in the broker, dead-lettered (class restore) by the after-restore check
    not_restored = (
        c["orders_placed_after_the_dump_started"] - c["orders_after_the_dump_in_the_restored_database"]
    )
    assert c["orders_lost_by_the_restore"] == not_restored + 3 == len(report.lost_by_restore)
    assert c["orders_queued_at_the_stop_dead_lettered_restore"] == 3
    # the runbook's step 4: the numbers emailed past the restored counter voided before the web
    # started; the documents issued after it numbered past them, none given twice
    assert c["invoice_documents_emailed_before_the_dump"] > 0
    assert c["invoice_numbers_voided"] > 0
    assert c["invoice_documents_issued_after_the_restore"] == c["orders_paid_after_the_restore_placed"] == 3
    assert c["invoice_numbers_given_twice"] == 0
    steps = [row["step"] for row in report.steps]
    assert steps.index("manage.py reconcile --after-restore (workers stopped)") < steps.index(
        "start web, relays, workers and beat"
    )
    assert steps.index(f"{VOID_STEP} (web stopped)") < steps.index("start web, relays, workers and beat")
    # the after-restore check sent the emails in flight at the restore point on their way:
    # the repair, the runbook's safety net, finds nothing left
    notes = {row["step"]: row["note"] for row in report.steps}
    assert (
        "event(s) of emails in flight at the restore point published again"
        in notes["manage.py reconcile --after-restore (workers stopped)"]
    )
    assert re.search(
        r"(?<!\d)0 stuck notification\(s\)", notes["manage.py reconcile --repair --stuck-after 1m"]
    )
    written = json.loads(json_path.read_text())
    assert (written["outcome"], written["passed"]) == ("PASSED", True)
    assert "# Restore drill: PASSED" in markdown_path.read_text()
