"""The outage drill's report and its verdict: JSON for machines, a Markdown table for people
(docs/drills/outage-latest.*)."""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tools.drill.outage_verdict import TRAVEL_SECONDS, rate_window_bound

# Final statuses an email of this drill may end in: sent, or a confirmation skipped because
# its order was cancelled before it went out (tools/drill/verdict.py checks which ones may be).
ALLOWED_STATUSES = {"sent", "skipped"}
OUTAGE_WORDS = {
    "503": "the first provider drops the first 5 sends after taking them, then answers 503 to every send",
    "drop": "the first provider takes every send and drops the connection before answering",
}
BOUNDS = [
    "Bounds (tools/drill/outage_verdict.py): during the outage, (circuit failures - 1) + workers x pool",
    "processes x batch size (the calls claimed when the circuit opens) + one probe per open period",
    "(floor(outage / open seconds) + 1); after it, the bucket's one call plus the",
    f"limit x (window + {TRAVEL_SECONDS:g} s for the calls' travel from their tokens to the provider); the",
    "bucket's own allowance, over the window alone, in brackets.",
]


@dataclass
class OutageReport:
    config: dict
    load: dict  # tools/drill/report.py load_summary: orders asked and placed side by side
    verdict: dict  # tools/drill/verdict.py: lost, duplicates, unfinished, from the simulator and SQL
    provider: dict  # tools/drill/outage_verdict.py: requests during and after the outage
    statuses: dict[str, int]  # notifications by status
    dead_letters: dict[str, int]  # messages in each dead-letter queue
    backlog_at_outage_end: int  # emails of orders placed by the outage's end, sent after it
    drain_seconds: float | None  # from the outage's end to the last of those sent
    settled: bool
    seconds_to_settle: float
    seconds_total: float
    kind: str = "503"  # how the first provider failed (tools/drill/outage.py OUTAGE_KINDS)
    # Commit → accepted of the emails of orders placed during the outage (outage_fallback.py)
    latency_during_outage: dict = field(default_factory=dict)
    latency_before_outage: dict = field(default_factory=dict)  # the same, the provider healthy
    fallback: dict | None = None  # outage_fallback.FallbackFacts, with a fallback provider
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems

    @property
    def outcome(self) -> str:
        return "PASSED" if self.passed else "FAILED"

    def judge(self, *, load_complete: bool, load_shortfall: str) -> None:
        """Every rule of the acceptance; each one broken is a problem (and the drill FAILED)."""
        problems = self.problems
        if not load_complete:
            problems.append(load_shortfall)
        if not self.settled:
            problems.append(f"did not settle within the timeout ({self.config.get('settle_timeout')} s)")
        if not self.verdict["passed"]:
            problems.append(
                "emails lost, doubled or unfinished: lost {lost}, duplicates {duplicates}, "
                "unexpected {unexpected}, unfinished {unfinished}".format(**self.verdict)
            )
        others = {status: n for status, n in self.statuses.items() if status not in ALLOWED_STATUSES}
        if others:
            problems.append(f"emails not sent: {others}")
        if self.statuses.get("sent", 0) == 0:
            problems.append("no email was sent")
        dead = {queue: n for queue, n in self.dead_letters.items() if n}
        if dead:
            problems.append(f"dead-lettered messages: {dead}")
        problems.extend(self.provider["problems"])
        if self.fallback is not None:
            problems.extend(self.fallback["problems"])


def outage_report_write(report: OutageReport, directory: Path, name: str = "latest") -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"outage-{name}.json"
    document = asdict(report) | {"passed": report.passed, "outcome": report.outcome}
    json_path.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / f"outage-{name}.md"
    markdown_path.write_text(outage_report_markdown(report))
    return json_path, markdown_path


def outage_report_markdown(report: OutageReport) -> str:
    load, provider, verdict, config = report.load, report.provider, report.verdict, report.config
    drain = "none" if report.drain_seconds is None else f"{report.drain_seconds} s"
    rows = [
        ("verdict", report.outcome),
        (f"outage ({OUTAGE_WORDS.get(report.kind, report.kind)})", f"{provider['outage_seconds']} s"),
        ("orders asked / placed", f"{load['orders_asked']} / {load['orders_placed']}"),
        ("orders per second, steady", config["rate"]),
        ("emails by status", _counts(report.statuses)),
        (
            "lost / duplicates / unfinished",
            f"{verdict['lost']} / {verdict['duplicates']} / {verdict['unfinished']}",
        ),
        ("dead-lettered messages", sum(report.dead_letters.values())),
        *_clock_and_fallback_rows(report),
        ("provider requests before the outage", provider["requests_before"]),
        (
            "provider requests during the outage (bound)",
            f"{provider['requests_during_outage']} (≤ {provider['requests_during_outage_bound']})",
        ),
        ("emails held at the outage's end, sent after it", report.backlog_at_outage_end),
        ("drain: outage's end to the last of them sent", drain),
        ("provider requests after the outage", provider["requests_after"]),
        ("sending limit (MAIL_PROVIDER_RATE_LIMIT)", f"{provider['rate_limit']:g}/s"),
        (
            "most requests in any 1 s after the outage (bound)",
            f"{provider['max_in_1s_after']} (≤ {provider['max_in_1s_bound']}) [{_bucket(provider, 1)}]",
        ),
        (
            "most requests in any 10 s after the outage (bound)",
            f"{provider['max_in_10s_after']} (≤ {provider['max_in_10s_bound']}) [{_bucket(provider, 10)}]",
        ),
        ("client requests retried / throttled / given up", _client(load)),
        ("time to settle after the last order", f"{report.seconds_to_settle} s"),
        ("whole drill", f"{report.seconds_total} s"),
    ]
    lines = ["| | |", "|---|---|", *(f"| {label} | {value} |" for label, value in rows), "", *BOUNDS]
    if report.problems:
        lines += ["", "Problems:", *(f"- {problem}" for problem in report.problems)]
    return "\n".join(lines) + "\n"


def _clock_and_fallback_rows(report: OutageReport) -> list[tuple[str, object]]:
    """How long the outage's orders waited for their emails, and with a fallback, how it took
    over and what it never took."""
    rows: list[tuple[str, object]] = [
        (f"commit → accepted, emails of orders placed {when}: p50 / p99 / max", _clock(clock))
        for when, clock in (
            ("before the outage", report.latency_before_outage),
            ("during the outage", report.latency_during_outage),
        )
        if clock
    ]
    fallback = report.fallback
    if fallback is None:
        return [*rows, ("fallback provider", "none: emails wait for the first")]
    free = report.latency_during_outage.get("free_to_move")
    if free:
        behind = report.latency_during_outage.get("behind_unknown")
        label = (
            f"of them, emails free to move (not of an order with an email of unknown outcome at "
            f"{fallback['first']}; {behind} were): p50 / p99 / max"
        )
        rows.append((label, _clock(free)))
    return [
        *rows,
        ("fallback provider", fallback["fallback"]),
        ("its first email after the outage began", f"{fallback['takeover_seconds']} s"),
        (
            f"emails sent through {fallback['first']} / {fallback['fallback']}",
            f"{fallback['sent_through_first']} / {fallback['sent_through_fallback']}",
        ),
        (
            f"emails caught with an unknown outcome at {fallback['first']} / of them moved",
            f"{fallback['caught_unknown']} / {fallback['caught_moved']}",
        ),
    ]


def _clock(clock: dict) -> str:
    return f"{clock.get('p50')} / {clock.get('p99')} / {clock.get('max')} s ({clock.get('emails')} emails)"


def _bucket(provider: dict, window_seconds: float) -> int:
    return rate_window_bound(provider["rate_limit"], window_seconds, travel_seconds=0)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(counts.items())) or "none"


def _client(load: dict) -> str:
    return f"{load['requests_retried']} / {load['requests_throttled']} / {load['requests_given_up']}"
