"""A drill report with nothing in it but what a test gives, for tests of the report's rows
(tools/drill/report.py) that need no stack."""

from dataclasses import replace
from typing import Any

from tools.drill.load import LoadResult
from tools.drill.report import DrillReport, load_summary


def drill_report(
    *, load: LoadResult | None = None, verdict: dict | None = None, chaos: dict | None = None, **fields: Any
) -> DrillReport:
    """Zeros and empty lists everywhere; `verdict` and `chaos` entries override theirs."""
    empty_verdict = dict.fromkeys(
        ["orders", "emails_expected", "emails_accepted", "duplicates", "lost", "unexpected", "unfinished"], 0
    ) | {"parked": 0, "unpublished_events": 0, "problems": []}
    delivery = dict.fromkeys(
        ["sent_without_state", "webhook_events", "events_stored", "events_unapplied", "webhook_duplicates"], 0
    ) | {"states": {}, "webhook_posts": 0, "webhooks_given_up": 0, "problems": []}
    empty_chaos = dict.fromkeys(
        ["worker_kills", "relay_kills", "broker_restarts", "database_terminations", "republished_copies"], 0
    )
    report = DrillReport(
        config={"api_throttle_rate": "100/min"},
        verdict=empty_verdict | (verdict or {}),
        passed=True,
        outcome="PASSED",
        chaos=empty_chaos | (chaos or {}),
        faults_injected={},
        load=load_summary(load or LoadResult(orders_asked=0)),
        seconds_to_settle=1.0,
        seconds_total=2.0,
        delivery=delivery,
    )
    return replace(report, **fields)
