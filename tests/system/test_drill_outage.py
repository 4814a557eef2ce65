"""The provider-outage drill, short (issue 16): the provider answers 503 to every send for a
minute while orders arrive at a steady rate, through every process of `make run` with the
product's real retry clocks; afterwards every email is sent, none failed or dead-lettered,
the provider saw few calls during the outage and never more than the limit after it.
(tests/unit/test_outage_verdict.py: the verdict fails on logs that break the bounds.)"""

import json

import pytest

from tools.drill.outage import OutageConfig, outage_run
from tools.drill.outage_report import outage_report_markdown, outage_report_write


def _short(**changes: object) -> OutageConfig:
    """A minute of outage at one order a second, ten seconds of orders before and after."""
    fields: dict = {
        "outage_seconds": 60,
        "rate": 1,
        "before_seconds": 10,
        "after_seconds": 10,
        "mail_rate_limit": 5,
        "settle_timeout": 300,
    }
    return OutageConfig(**(fields | changes))


@pytest.mark.tool_check  # `make test-tools` and CI: a few minutes of real processes
@pytest.mark.timeout(900)
def test_a_minute_of_provider_outage_ends_with_every_email_sent_and_few_calls(tmp_path):
    report = outage_run(_short())
    print(outage_report_markdown(report))
    assert report.passed, report.problems
    assert report.load["orders_asked"] == report.load["orders_placed"] == 80
    assert set(report.statuses) <= {"sent", "skipped"}
    assert report.statuses["sent"] >= 80
    assert sum(report.dead_letters.values()) == 0
    provider = report.provider
    # the outage happened and the circuit held the calls back: far fewer than the emails held
    assert provider["requests_during_outage"] >= 5  # the failures that opened the circuit
    assert provider["requests_during_outage"] < report.backlog_at_outage_end
    assert provider["requests_during_outage"] <= provider["requests_during_outage_bound"]
    # 5/s: the bucket's one call, 5 a second, 0.2 s of the calls' travel
    assert provider["max_in_1s_after"] <= provider["max_in_1s_bound"] == 7
    # the backlog came back with the circuit's next probe, not after a long back-off
    assert report.drain_seconds is not None
    assert report.drain_seconds < 120
    json_path, markdown_path = outage_report_write(report, tmp_path)
    assert json.loads(json_path.read_text())["outcome"] == "PASSED"
    assert "| verdict | PASSED |" in markdown_path.read_text()


@pytest.mark.tool_check
@pytest.mark.timeout(900)
def test_with_a_fallback_the_outages_emails_go_out_within_seconds_and_no_unknown_one_moves():
    report = outage_run(_short(fallback="brevo"))
    print(outage_report_markdown(report))
    assert report.passed, report.problems
    assert report.load["orders_asked"] == report.load["orders_placed"] == 80
    fallback = report.fallback
    assert fallback is not None
    # the five sends the first provider dropped at the outage's start stayed with it
    assert 1 <= fallback["caught_unknown"] <= 5
    assert fallback["caught_moved"] == 0
    # and the rest went out through the fallback within seconds, each once across both
    assert fallback["takeover_seconds"] < 30
    assert fallback["sent_through_fallback"] >= 50
    assert report.verdict["duplicates"] == 0
    # an email of an order whose email is caught stays behind it (it follows it): held for the
    # outage whatever the fallback does; every other email moves (without a fallback: held for
    # the minute)
    during = report.latency_during_outage
    free = during["free_to_move"]
    assert free["emails"] + during["behind_unknown"] == during["emails"]
    assert free["emails"] >= 50
    assert free["p99"] < 30


@pytest.mark.tool_check
@pytest.mark.timeout(900)
def test_when_the_first_takes_every_send_and_drops_the_answer_none_of_those_emails_moves():
    report = outage_run(_short(outage_seconds=40, fallback="brevo", kind="drop"))
    print(outage_report_markdown(report))
    assert report.passed, report.problems
    fallback = report.fallback
    assert fallback is not None
    assert fallback["caught_unknown"] >= 5  # every send during the outage, until the circuit opened
    assert fallback["caught_moved"] == 0
    assert fallback["sent_through_fallback"] > 0  # the emails nothing of which had reached it
    assert report.verdict["duplicates"] == 0
