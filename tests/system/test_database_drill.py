"""The database drill, short: a few hundred orders through the real stack on a PostgreSQL
cluster of its own (three nodes on Patroni, a synchronous standby), whose primary's PostgreSQL
is SIGKILLed once while orders are placed, beside the drill's usual faults (worker and relay
kills, dropped connections, the provider's faults, republished events). Every order the API
confirmed is there, every email went out once, the old primary is back as a standby, and the
web answered 503, never 500, in the gap. The full drill (two crashes and a freeze) is `make
drill DATABASE=patroni`."""

import pytest

from tools.drill.harness import DrillConfig, drill_run, report_markdown


# Longer than the drill's settle timeout (240 s) with the cluster's start and the failover's waits.
@pytest.mark.tool_check
@pytest.mark.timeout(540)
def test_a_crashed_primary_loses_no_confirmed_order_and_doubles_no_email():
    report = drill_run(
        DrillConfig(
            orders=300, rate=30, kill_every=3, database="patroni", database_faults_at=((0.4, "crash"),)
        )
    )
    print(report_markdown(report))
    verdict = report.verdict
    assert report.passed, verdict["problems"]
    assert (verdict["lost"], verdict["duplicates"], verdict["unexpected"]) == (0, 0, 0)
    assert verdict["orders_lost_by_the_api"] == verdict["unpublished_events"] == 0
    assert report.load["orders_asked"] == report.load["orders_placed"] == verdict["orders"] == 300
    [fault] = report.chaos["database_faults"]
    assert fault["kind"] == "crash"
    assert fault["new_primary"] not in (None, fault["node"])
    assert fault["timeline_after"] > fault["timeline_before"]
    assert fault["rejoined_as"] in ("replica", "sync_standby")
    # it fell while orders were placed, and orders were committed on the new primary
    assert fault["orders_flowing"]
    assert fault["orders_committed_after"] > 0
    assert fault["seconds_to_first_commit"] is not None
    assert fault["seconds_to_first_email"] is not None
    # no 500: the gap is answered 503 (or not at all, by a web worker whose connection broke)
    assert set(report.database["retried_answers"]) <= {"503", "no answer"}
    assert report.database["patroni"]["synchronous_mode"] is True
