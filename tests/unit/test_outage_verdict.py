"""The outage drill's verdict on made-up request logs: the sliding window, the bounds it
derives from the circuit's and the limiter's settings, a log that breaks the rate or the
outage's bound failing it, and the report failing on a failed email or a dead letter; and the
drill's "production" settings being the product's defaults. (tests/system/test_drill_outage.py:
a short real run.)"""

import re
from pathlib import Path
from typing import Any

from tools.drill.outage import PRODUCTION_SETTINGS, OutageConfig
from tools.drill.outage_fallback import FallbackFacts, fallback_problems
from tools.drill.outage_report import OutageReport, outage_report_markdown
from tools.drill.outage_verdict import (
    CircuitSizes,
    max_in_window,
    outage_request_bound,
    provider_verdict,
    rate_window_bound,
)

REPO = Path(__file__).resolve().parents[2]
SIZES = CircuitSizes(failures=5, open_seconds=30, workers=2, concurrency=2, batch_size=16)
OUTAGE = (1000.0, 1600.0)  # ten minutes


def steady(start: float, seconds: float, per_second: float) -> list[float]:
    return [start + n / per_second for n in range(round(seconds * per_second))]


def test_the_window_counts_the_fullest_closed_second_wherever_it_starts():
    assert max_in_window([], 1.0) == (0, None)
    assert max_in_window([5.0], 1.0) == (1, 5.0)
    # 0.0 and 1.0 share a closed window; 0.1 .. 1.05 is the fullest one
    assert max_in_window([0.0, 0.1, 0.5, 1.0, 1.05, 1.1, 2.5], 1.0) == (5, 0.1)
    assert max_in_window([3.0, 1.0, 2.0, 1.5], 1.0) == (3, 1.0)  # unsorted logs too
    assert max_in_window(steady(0, 10, 5), 1.0)[0] == 6  # 5 a second: both ends of one second


def test_the_bounds_follow_the_circuit_and_the_bucket():
    # 4 counted failures, a batch of 16 in flight in each of 2 x 2 pool processes, 21 probes
    assert outage_request_bound(600, SIZES) == 4 + 64 + 21
    assert outage_request_bound(29, SIZES) == 4 + 64 + 1
    # the bucket's one token plus what refills in the window
    assert rate_window_bound(5, 1, travel_seconds=0) == 6
    assert rate_window_bound(5, 10, travel_seconds=0) == 51
    assert rate_window_bound(0.5, 1, travel_seconds=0) == 1
    # and in the calls' travel from their tokens to the provider
    assert rate_window_bound(5, 1) == 7
    assert rate_window_bound(5, 10) == 52


def test_a_log_that_keeps_to_the_circuit_and_the_limit_passes():
    arrivals = [*steady(900, 100, 2), *steady(1000, 5, 1), *steady(1010, 600, 1 / 30), *steady(1601, 300, 5)]
    verdict = provider_verdict(arrivals, outage=OUTAGE, rate=5, sizes=SIZES)
    assert verdict.passed, verdict.problems
    assert (verdict.requests_before, verdict.requests_during_outage) == (200, 5 + 20)
    assert (verdict.max_in_1s_after, verdict.max_in_10s_after) == (6, 51)


def test_a_log_faster_than_the_limit_after_the_outage_fails():
    burst = [1700.0 + n / 100 for n in range(8)]  # 8 calls within a tenth of a second
    verdict = provider_verdict([*steady(1601, 60, 1), *burst], outage=OUTAGE, rate=5, sizes=SIZES)
    assert not verdict.passed
    assert verdict.max_in_1s_after == 8 > verdict.max_in_1s_bound == 7
    assert "8 requests within 1 s" in verdict.problems[0]


def test_a_log_steadily_over_the_limit_fails_on_ten_seconds_though_no_second_is_over():
    verdict = provider_verdict(steady(1601, 60, 6), outage=OUTAGE, rate=5, sizes=SIZES)
    assert verdict.max_in_1s_after == 7 <= verdict.max_in_1s_bound
    assert verdict.max_in_10s_after == 61 > verdict.max_in_10s_bound == 52
    assert [problem.split(" requests within")[0] for problem in verdict.problems] == [
        "after the outage the provider saw 61"
    ]


def test_a_log_with_more_calls_during_the_outage_than_the_circuit_allows_fails():
    verdict = provider_verdict(steady(1000, 600, 0.2), outage=OUTAGE, rate=5, sizes=SIZES)  # 120 calls
    assert not verdict.passed
    assert verdict.requests_during_outage == 120 > verdict.requests_during_outage_bound == 89
    assert "120 requests during the outage" in verdict.problems[0]


def _report(**changes) -> OutageReport:
    provider = provider_verdict(steady(1601, 60, 1), outage=OUTAGE, rate=5, sizes=SIZES)
    fields: dict[str, Any] = {
        "config": {"rate": "2.0", "settle_timeout": "1800.0"},
        "load": {
            "orders_asked": 10,
            "orders_placed": 10,
            "requests_retried": 0,
            "requests_throttled": 0,
            "requests_given_up": 0,
        },
        "verdict": {"passed": True, "lost": 0, "duplicates": 0, "unexpected": 0, "unfinished": 0},
        "provider": vars(provider),
        "statuses": {"sent": 11, "skipped": 1},
        "dead_letters": {"orders.confirmations.dlq": 0},
        "backlog_at_outage_end": 8,
        "drain_seconds": 40.0,
        "settled": True,
        "seconds_to_settle": 50.0,
        "seconds_total": 700.0,
    }
    report = OutageReport(**(fields | changes))
    report.judge(load_complete=True, load_shortfall="")
    return report


def test_the_report_fails_on_a_failed_email_a_dead_letter_or_a_provider_problem():
    assert _report().passed
    markdown = outage_report_markdown(_report())
    assert "| verdict | PASSED |" in markdown
    assert "| most requests in any 1 s after the outage (bound) | 2 (≤ 7) [6] |" in markdown
    failed = _report(statuses={"sent": 10, "failed": 1})
    assert failed.problems == ["emails not sent: {'failed': 1}"]
    assert "| verdict | FAILED |" in outage_report_markdown(failed)
    assert not _report(dead_letters={"orders.confirmations.dlq": 1}).passed
    assert not _report(settled=False).passed
    too_many = provider_verdict(steady(1000, 600, 0.2), outage=OUTAGE, rate=5, sizes=SIZES)
    assert not _report(provider=vars(too_many)).passed


def test_the_drill_runs_the_products_default_settings_not_the_fault_drills_short_clocks():
    settings_text = "\n".join(path.read_text() for path in (REPO / "config/settings").glob("*.py"))
    for name, value in PRODUCTION_SETTINGS.items():
        if name == "WORKER_CONCURRENCY":
            assert f"WORKER_CONCURRENCY:-{value}" in (REPO / "bin/worker").read_text()
            continue
        found = re.search(rf'env\.(?:int|float)\("{name}", default=([\d.]+)\)', settings_text)
        assert found, name
        assert float(found.group(1)) == float(value), name
    assert OutageConfig().sizes() == SIZES


def _fallback(**changes) -> dict:
    facts = FallbackFacts(
        first="resend",
        fallback="brevo",
        sent_through_first=30,
        sent_through_fallback=90,
        fallback_accepted=90,
        takeover_seconds=2.5,
        caught_unknown=5,
        caught_moved=0,
    )
    for name, value in changes.items():
        setattr(facts, name, value)
    facts.problems = fallback_problems(facts)
    return vars(facts)


def test_the_fallback_report_fails_on_a_moved_unknown_email_a_late_takeover_or_nothing_to_show():
    report = _report(
        fallback=_fallback(), latency_during_outage={"emails": 90, "p50": 0.05, "p99": 3.1, "max": 4}
    )
    assert report.passed
    markdown = outage_report_markdown(report)
    assert "| emails caught with an unknown outcome at resend / of them moved | 5 / 0 |" in markdown
    assert "| its first email after the outage began | 2.5 s |" in markdown
    assert (
        "| commit → accepted, emails of orders placed during the outage: p50 / p99 / max | 0.05 / 3.1 / 4 s"
        in markdown
    )
    held = {"emails": 80, "p50": 0.04, "p99": 2.5, "max": 3}
    behind = _report(
        fallback=_fallback(),
        latency_during_outage={
            "emails": 90,
            "p50": 0.05,
            "p99": 31,
            "max": 33,
            "free_to_move": held,
            "behind_unknown": 10,
        },
    )
    assert (
        "| of them, emails free to move (not of an order with an email of unknown outcome at resend; "
        "10 were): p50 / p99 / max | 0.04 / 2.5 / 3 s (80 emails) |" in outage_report_markdown(behind)
    )
    moved = _report(fallback=_fallback(caught_moved=1))
    assert moved.problems == ["1 email(s) whose outcome at resend was unknown went to brevo"]
    assert not _report(fallback=_fallback(caught_unknown=0)).passed  # the drill showed nothing of them
    assert not _report(fallback=_fallback(takeover_seconds=45.0)).passed
    assert not _report(fallback=_fallback(sent_through_fallback=0)).passed
    assert "| fallback provider | none: emails wait for the first |" in outage_report_markdown(_report())
