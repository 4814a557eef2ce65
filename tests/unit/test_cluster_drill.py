"""The cluster drill's schedule and its failover verdict (tools/drill/harness.py,
tools/drill/broker_faults.py): when the leader and a follower of orders.confirmations die, and
that a kill the cluster did not fail over from fails the drill."""

import pytest

from tests.drill_reports import drill_report
from tools.drill.broker_faults import failover_problems
from tools.drill.harness import DrillConfig, broker_faults
from tools.drill.report import report_markdown


def test_the_cluster_drill_kills_the_leader_then_a_follower_while_orders_flow():
    # 5000 orders at 25/s: a 200 s stream; the kills at 30 % and 65 % of it
    assert broker_faults(DrillConfig(orders=5000, rate=25, cluster=3)) == [
        (60.0, "leader"),
        (130.0, "follower"),
    ]
    # one node: its hard restart at 40 %, as before; none when switched off
    assert broker_faults(DrillConfig(orders=5000, rate=25)) == [(80.0, "restart")]
    assert broker_faults(DrillConfig(orders=300, broker_restart_at=None)) == []


def _kill(**fields) -> dict:
    return {
        "node": "drill0-x@localhost",
        "role": "leader",
        "new_leader": "drill1-y@localhost",
        "seconds_to_new_leader": 1.5,
        "seconds_to_confirmed_publish": 9.0,
        "orders_flowing": True,
        "seconds_to_restart": 20.0,
    } | fields


def test_a_failover_that_did_not_happen_is_a_problem_and_one_that_did_is_not():
    assert (
        failover_problems([_kill(), _kill(role="follower", new_leader=None, seconds_to_new_leader=None)])
        == []
    )
    assert failover_problems([_kill(new_leader=None, seconds_to_new_leader=None)]) == [
        "no new leader of orders.confirmations after drill0-x@localhost was killed"
    ]
    assert failover_problems([_kill(role="follower", seconds_to_confirmed_publish=None)]) == [
        "no confirmed publish into orders.confirmations after drill0-x@localhost was killed"
    ]
    # after the stream no order is created: no publish to wait for, and no problem
    assert failover_problems([_kill(seconds_to_confirmed_publish=None, orders_flowing=False)]) == []


def test_a_kill_after_which_no_order_was_committed_is_reported_and_not_judged():
    # given: the follower died once every order had been placed, the load still running
    late = _kill(role="follower", seconds_to_confirmed_publish=None, orders_committed_after=0)
    # then: no failed failover, and the report says why there is no publish
    assert failover_problems([late]) == []
    assert (
        "leader unchanged; first confirmed publish into it not judged (no order was committed after "
        "this kill: the stream had ended; nothing to judge);"
    ) in _report_with([late])


def test_a_kill_with_orders_still_committed_after_it_and_no_publish_fails():
    stuck = _kill(role="follower", seconds_to_confirmed_publish=None, orders_committed_after=40)
    assert failover_problems([stuck]) == [
        "no confirmed publish into orders.confirmations after drill0-x@localhost was killed,"
        " though 40 orders were committed after it"
    ]
    assert "first confirmed publish into it not seen within the wait;" in _report_with([stuck])
    # a publish measured after a kill is judged as before, counted or not
    assert failover_problems([_kill(orders_committed_after=40)]) == []


def test_the_report_tells_the_drill_s_wait_from_the_node_s_boot():
    # given: the drill waited 90 s for a publish before it started the node again
    late = _kill(
        role="follower", seconds_to_confirmed_publish=None, seconds_to_start=90.2, seconds_to_restart=94.1
    )
    # then
    assert "node started again after 90.2 s (once measured), back after 94.1 s |" in _report_with([late])
    assert "node started again, back after 20.0 s |" in _report_with([_kill()])  # a report from before


def _report_with(kills: list[dict]) -> str:
    return report_markdown(drill_report(chaos={"broker_kills": kills}))


@pytest.mark.parametrize(
    ("key", "after", "row"),
    [
        (
            "commit_to_queue",
            {"events": 250, "unpublished": 0, "p50": 0.04, "p99": 0.61, "max": 0.9},
            "| node kill 1: commit → confirmed in the queue, orders of the 10 s after it"
            " (of the 10 s before it) | 250 orders: p50 0.04 s, p99 0.61 s, max 0.9 s",
        ),
        (  # and the emails never sent, when there are some
            "commit_to_sent",
            {"events": 250, "unsent": 2, "p50": 0.3, "p99": 6.5, "max": 7.1},
            "| node kill 1: commit → email sent, orders of the 10 s after it"
            " (of the 10 s before it) | 250 orders: p50 0.3 s, p99 6.5 s, max 7.1 s, 2 unsent",
        ),
    ],
)
def test_the_report_gives_each_window_after_a_kill_beside_the_one_before(key, after, row):
    before = {"events": 248, "unpublished": 0, "unsent": 0, "p50": 0.03, "p99": 0.2, "max": 0.4}
    markdown = _report_with([_kill(**{f"{key}_after": after, f"{key}_before": before})])
    assert f"{row} (248 orders: p50 0.03 s, p99 0.2 s, max 0.4 s) |" in markdown
    # a kill after the stream had no orders around it: no such row
    assert row.split(", orders of")[0] not in _report_with([_kill(**{f"{key}_after": None})])


def test_the_report_says_when_each_consumer_that_lost_the_node_was_back_and_which_never_was():
    backs = [
        {"log": "worker0", "process": 11, "seconds_to_connected": 0.22, "seconds_to_first_message": 0.57},
        {"log": "relay0", "process": 21, "seconds_to_connected": 0.08, "seconds_to_first_message": None},
    ]
    markdown = _report_with([_kill(consumers_back=backs)])
    assert (
        "| node kill 1: workers and relays that lost it, back after (connected / first message taken) "
        "| worker0 0.22 s / 0.57 s; relay0 0.08 s / never |"
    ) in markdown
    assert "none was connected to it" in _report_with([_kill(consumers_back=[])])
    assert "workers and relays that lost it" not in _report_with([_kill()])  # a report from before
