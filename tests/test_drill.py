"""The fault drill, short: a few hundred orders through the real stack while workers and
relays are SIGKILLed, RabbitMQ restarts, database connections drop, the provider misbehaves
and events are published again out of order. The verdict comes from the simulator's records
and the database. And a deliberately broken build must fail it: the drill can fail."""

from drill.harness import DrillConfig, drill_run, report_markdown


def test_a_short_drill_ends_with_nothing_lost_and_nothing_doubled():
    report = drill_run(DrillConfig(orders=300, rate=30, kill_every=3))
    print(report_markdown(report))
    verdict = report.verdict
    assert report.passed, verdict["problems"]
    assert (verdict["lost"], verdict["duplicates"], verdict["unexpected"]) == (0, 0, 0)
    assert verdict["orders"] == 300
    assert verdict["emails_accepted"] == verdict["emails_expected"] > 300  # cancellations too
    chaos = report.chaos
    assert chaos["worker_kills"] >= 1
    assert chaos["relay_kills"] >= 1
    assert chaos["broker_restarts"] == 1
    assert chaos["database_terminations"] >= 1
    assert chaos["republished_copies"] > 0
    assert {"503", "429", "stall", "accept_then_drop"} <= set(report.faults_injected)


def test_a_build_that_breaks_deduplication_fails_the_drill():
    report = drill_run(
        DrillConfig(
            orders=80,
            rate=30,
            kill_every=1.5,
            broker_restart_at=None,  # duplicates come from redeliveries and republished copies alone
            extra_env={"MESSAGING_EVENT_CATALOGUES": "orders.events,drill.broken_build"},
            settle_timeout=20,  # a broken build need not settle; the verdict is what counts
        )
    )
    assert not report.passed
    assert report.verdict["duplicates"] > 0
