"""The database drill's parts that need no stack (tools/drill/database_*.py): its schedule,
which follows the stream; the verdict on each failover; the report's rows; reading Patroni's
log for pg_rewind; the command's options."""

import threading
from datetime import UTC, datetime, timedelta

import pytest

from tests.drill_reports import drill_report
from tools.drill.__main__ import main, report_name
from tools.drill.chaos import Chaos
from tools.drill.database_drill import database_cluster_for, synchronous
from tools.drill.database_faults import rewind_outcome
from tools.drill.database_fence import FenceResult, FenceWrite
from tools.drill.database_verdict import answers_between, database_problems
from tools.drill.harness import DrillConfig, broker_faults, database_faults
from tools.drill.report import report_markdown

KILLED = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)


def _fault(**fields) -> dict:
    return {
        "kind": "crash",
        "node": "node0",
        "killed_at": KILLED.isoformat(),
        "orders_placed_before": 200,
        "timeline_before": 1,
        "new_primary": "node1",
        "seconds_to_new_primary": 1.4,
        "timeline_after": 2,
        "seconds_to_rejoin": 7.5,
        "rejoined_as": "replica",
        "rewound": "yes",
        "seconds_frozen": None,
        "fence": {},
        "orders_flowing": True,
        "orders_committed_after": 400,
        "seconds_to_first_commit": 2.1,
        "seconds_to_first_email": 2.6,
        "answers_in_gap": {"503": 3},
        "answers_until_next_fault": {"503": 4, "no answer": 1},
    } | fields


def test_the_primary_fails_three_times_at_shares_of_the_orders_placed():
    config = DrillConfig(orders=1000, database="patroni")
    assert database_faults(config) == [(200, "crash"), (450, "crash"), (700, "freeze")]
    # the failovers measured are the database's: the single broker node is left alone
    assert broker_faults(config) == []
    assert database_faults(DrillConfig(orders=1000)) == []
    assert broker_faults(DrillConfig(orders=1000, rate=25)) == [(16.0, "restart")]


def test_asynchronous_standbys_are_the_counter_proof_s_only_difference():
    assert synchronous("patroni")
    assert not synchronous("patroni-async")
    assert database_faults(DrillConfig(database="patroni-async")) == database_faults(
        DrillConfig(database="patroni")
    )
    assert database_cluster_for("local", "orders_x") is None
    with pytest.raises(ValueError, match="unknown database mode 'sqlite'"):
        database_cluster_for("sqlite", "orders_x")


class _Recorded(Chaos):
    def __init__(self, faults: list[tuple[int, str]], placed: list[int]):
        super().__init__(None, seed=1, kill_every=60, broker_faults=[], database_faults=faults,  # type: ignore[arg-type]
                         orders_placed=lambda: placed[0])  # fmt: skip
        self.done: list[tuple[str, int]] = []

    def _database_fault(self, kind: str) -> None:
        self.done.append((kind, self.orders_placed()))


def test_a_database_fault_falls_once_the_load_has_placed_its_orders_not_at_a_time():
    placed = [0]
    chaos = _Recorded([(5, "crash"), (9, "freeze")], placed)
    assert chaos._wait(0.3) is False
    assert chaos.done == []  # whatever the time, no order placed yet
    placed[0] = 6
    chaos._wait(0.3)
    assert chaos.done == [("crash", 6)]
    placed[0] = 9
    chaos._wait(0.3)
    assert chaos.done == [("crash", 6), ("freeze", 9)]


def test_a_halted_chaos_stops_waiting_at_once():
    chaos = _Recorded([], [0])
    halt = threading.Timer(0.1, chaos._halt.set)
    halt.start()
    assert chaos._wait(30) is True


def test_retried_answers_are_counted_by_status_between_two_moments():
    at = KILLED.timestamp()
    answers = [(at - 1, "503"), (at + 0.5, "503"), (at + 1, "no answer"), (at + 3, "503"), (at + 9, "500")]
    assert answers_between(answers, KILLED, KILLED + timedelta(seconds=2)) == {"503": 1, "no answer": 1}
    assert answers_between(answers, KILLED, None) == {"500": 1, "503": 2, "no answer": 1}
    assert answers_between(answers, None, None) == {"500": 1, "503": 3, "no answer": 1}


def test_a_failover_that_happened_cleanly_is_no_problem():
    assert database_problems([_fault(), _fault(kind="freeze", fence={"confirmed": 0})], []) == []
    assert database_problems([_fault()], [(0.0, "503"), (1.0, "no answer")]) == []


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"new_primary": None, "seconds_to_new_primary": None}, "no new primary after node0's crash"),
        (
            {"seconds_to_rejoin": None, "rejoined_as": None},
            "node0 did not come back as a standby of the new primary after its crash",
        ),
        ({"rewound": "failed"}, "pg_rewind failed on node0"),
        (
            {"kind": "freeze", "fence": {"confirmed": 2, "confirmed_then_lost": 2}},
            "node0 confirmed 2 writes after node1 took over; 2 of them are not in the database",
        ),
        (
            {"orders_committed_after": 0},
            "no order was committed after node0's crash, while orders were placed",
        ),
    ],
)
def test_each_failed_part_of_a_failover_is_a_problem(fields, problem):
    assert database_problems([_fault(**fields)], []) == [problem]


def test_an_email_the_database_has_no_record_of_is_a_problem():
    assert database_problems([], [], unknown_emails=2) == [
        "the provider accepted 2 emails the database has no record of"
    ]


def test_a_parcel_or_refund_the_api_confirmed_and_the_database_lost_is_a_problem():
    lost = {"shipments": 1, "refunds": 0}
    assert database_problems([], [], parts_lost=lost) == [
        "1 shipments the API confirmed are not in the database"
    ]


def test_a_500_in_a_database_drill_is_a_problem_and_a_503_is_not():
    answers = [(0.0, "503"), (1.0, "500"), (2.0, "500")]
    assert database_problems([], answers) == ["the web answered 500 2 times (no primary is answered 503)"]


def test_pg_rewind_is_read_from_patroni_s_log():
    ran = "INFO: running pg_rewind from host=127.0.0.1 port=20001\nINFO: pg_rewind exit code=0\n"
    assert rewind_outcome(ran) == "yes"
    assert rewind_outcome(ran.replace("code=0", "code=1")) == "failed"
    assert rewind_outcome("INFO: Local timeline=2 lsn=0/5000000\nINFO: no action\n") == "no"


def test_the_fence_summary_tells_the_in_flight_write_from_the_new_connections():
    result = FenceResult(
        [
            FenceWrite(
                "in flight", sent_at=90.0, outcome="refused", seconds_to_answer=11.2, error="terminating"
            ),
            FenceWrite("after thaw", sent_at=100.2, outcome="confirmed", seconds_to_answer=0.01),
            FenceWrite("after thaw", sent_at=100.4, outcome="refused", error="read-only"),
        ]
    )
    summary = result.summary(thawed_at=100.0)
    assert (summary["writes"], summary["confirmed"], summary["refused"], summary["unanswered"]) == (
        3,
        1,
        2,
        0,
    )
    assert summary["in_flight"]["sent_at"] == -10.0
    assert [write["sent_at"] for write in summary["confirmed_writes"]] == [0.2]
    assert summary["errors"] == ["read-only", "terminating"]


def _report(faults: list[dict]) -> str:
    database = {
        "mode": "patroni",
        "nodes": 3,
        "patroni_version": "4.1.5",
        "patroni": {
            "ttl": 20,
            "loop_wait": 1,
            "retry_timeout": 5,
            "primary_start_timeout": 0,
            "synchronous_mode": True,
            "synchronous_mode_strict": True,
            "use_pg_rewind": True,
        },
        "retried_answers": {"503": 12, "no answer": 2},
        "emails_unknown_to_the_database": 0,
        "parts_lost": {"shipments": 0, "refunds": 1},
        "load_average": [3.2, 2.9, 2.5],
    }
    verdict = {"orders_lost_by_the_api": 0}
    return report_markdown(
        drill_report(chaos={"database_faults": faults}, database=database, verdict=verdict)
    )


def test_the_report_gives_each_failover_with_its_gap_and_the_cluster_s_clocks():
    fence = {
        "writes": 31,
        "confirmed": 0,
        "refused": 28,
        "unanswered": 3,
        "confirmed_then_lost": 0,
        "in_flight": {
            "outcome": "refused",
            "seconds_to_answer": 26.1,
            "error": "server closed the connection",
        },
    }
    freeze = _fault(kind="freeze", node="node1", new_primary="node2", seconds_frozen=26.0, fence=fence)
    markdown = _report([_fault(), freeze])
    assert (
        "| PostgreSQL | 3 nodes on Patroni 4.1.5, synchronous_mode on (strict); ttl 20 s, loop_wait 1 s,"
        " retry_timeout 5 s, primary_start_timeout 0, pg_rewind on |"
    ) in markdown
    assert (
        "| database fault 1: SIGKILL the PostgreSQL of primary node0, after 200 orders placed | new primary"
        " node1 after 1.4 s (timeline 1 → 2); node0 back as replica, streaming on the new timeline, after"
        " 7.5 s; pg_rewind: yes |"
    ) in markdown
    assert (
        "| database fault 1: from the kill to the first order committed on the new primary / first email"
        " of such an order sent | 2.1 s / 2.6 s; 400 orders committed after it |"
    ) in markdown
    assert (
        "| database fault 1: answers the client retried in the gap (until the next fault) |"
        " 503 3 (503 4, no answer 1) |"
    ) in markdown
    assert (
        "| database fault 2: SIGSTOP the whole primary node node1, SIGCONT after 26.0 s, after 200"
        in markdown
    )
    assert (
        "| database fault 2: writes aimed at the old primary alone | the write of a client connected before"
        " the freeze: refused 26.1 s after it was sent (server closed the connection); new connections after"
        " the thaw: 30 writes, 0 confirmed, 27 refused, 3 unanswered; confirmed and not in the database: 0 |"
    ) in markdown
    assert "| answers the client retried, by status (whole drill) | 503 12, no answer 2 |" in markdown
    assert "| orders / parcels / refunds the API confirmed and the database lost | 0 / 0 / 1 |" in markdown
    assert "| emails the provider accepted that the database has no record of | 0 |" in markdown
    assert "| the machine's load average at the end (1 / 5 / 15 min) | 3.2 / 2.9 / 2.5 |" in markdown


def test_a_drill_on_the_machine_s_postgresql_has_no_database_rows():
    assert "PostgreSQL" not in report_markdown(drill_report())


def test_each_database_mode_writes_its_own_report():
    assert report_name(DrillConfig(database="patroni")) == "database-latest"
    assert report_name(DrillConfig(database="patroni-async")) == "database-async-latest"
    assert report_name(DrillConfig(cluster=3)) == "cluster-latest"
    assert report_name(DrillConfig()) == "latest"


@pytest.mark.parametrize(
    "argv",
    [["--database", "sqlite"], ["--hosts", "2", "--database", "patroni"]],
    ids=["unknown", "two hosts"],
)
def test_a_database_the_drill_cannot_run_on_is_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert "--database" in capsys.readouterr().err
