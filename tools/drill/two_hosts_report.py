"""The two-host drill's report: JSON for machines, a Markdown table for people
(docs/drills/two-hosts-latest.*)."""

import json
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass
class TwoHostReport:
    config: dict
    outcome: str  # PASSED, FAILED or INCOMPLETE (tools.drill.harness.drill_outcome)
    verdict: dict  # tools/drill/verdict.py: lost, duplicates, unfinished
    takeover: dict  # tools/drill/takeover.py
    delivery: dict  # tools/drill/delivery_verdict.py: the webhooks
    load: dict
    cut: dict  # started_at, ended_at (local time, ISO)
    hosts: dict
    seconds_to_settle: float
    seconds_total: float

    @property
    def passed(self) -> bool:
        return self.outcome == "PASSED"


def two_host_report_write(report: TwoHostReport, directory: Path) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / "two-hosts-latest.json"
    json_path.write_text(json.dumps(asdict(report), indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / "two-hosts-latest.md"
    markdown_path.write_text(two_host_markdown(report))
    return json_path, markdown_path


def two_host_markdown(report: TwoHostReport) -> str:
    v, t, c, load = report.verdict, report.takeover, report.config, report.load
    a, b = report.hosts.get("a", {}), report.hosts.get("b", {})
    rows = [
        ("verdict", _verdict_text(report)),
        ("hosts", f"a {a.get('address')}, b {b.get('address')} (network namespaces, 198.18.0.0/15)"),
        (
            "host a's link cut",
            f"{report.cut['started_at']} to {report.cut['ended_at']} ({c['cut_seconds']:.0f} s)",
        ),
        (
            "lease / hard time limit / soft limit / provider connect + read",
            f"{c['lease_seconds']} s / {c['task_time_limit']} s / {c['task_soft_time_limit']} s / 1 + 2 s",
        ),
        ("broker heartbeat (a silent host is dropped after it)", f"{c['broker_heartbeat_seconds']} s"),
        ("orders asked / placed", f"{load['orders_asked']} / {load['orders_placed']}"),
        ("emails expected / accepted by the provider", f"{v['emails_expected']} / {v['emails_accepted']}"),
        ("lost", v["lost"]),
        ("duplicates (a second email to one customer of one kind)", v["duplicates"]),
        ("keys accepted twice by the provider", t["keys_accepted_twice"]),
        ("unfinished notifications", v["unfinished"]),
        ("waiting for a person (failed / needs review)", v["parked"]),
        ("host a's emails caught by the cut (its call open)", t["caught_by_the_cut"]),
        ("of those, taken over by host b", t["taken_over_by_b"]),
        ("of those, finished by host a after its link returned", t["finished_by_a_after_return"]),
        ("taken over while host a's lease was live (must be 0)", t["taken_over_under_a_live_lease"]),
        (
            "host b's takeovers, seconds after the lease ran out (first / last)",
            f"{t['first_takeover_after_lease_expiry_seconds']} / "
            f"{t['last_takeover_after_lease_expiry_seconds']}",
        ),
        ("host b's takeovers, seconds after the cut", _spread(t["takeover_seconds_after_cut"])),
        ("host a's provider calls during the cut (must be 0)", t["a_provider_calls_during_cut"]),
        ("host a's provider calls after its link returned", t["a_provider_calls_after_return"]),
        ("of those, for a key the provider had accepted already", t["a_repeats_after_return"]),
        ("sent emails without a delivery state (webhooks)", report.delivery["sent_without_state"]),
        ("client requests that went to the other host (no answer)", load["requests_failed_over"]),
        ("client requests retried", load["requests_retried"]),
        ("client requests given up", load["requests_given_up"]),
        ("time to settle after the stream", f"{report.seconds_to_settle} s"),
        ("whole drill", f"{report.seconds_total} s"),
    ]
    lines = ["| | |", "|---|---|", *(f"| {label} | {value} |" for label, value in rows)]
    problems = [*v["problems"], *t["problems"], *report.delivery["problems"]]
    if problems:
        lines += ["", "Problems:", *(f"- {problem}" for problem in problems[:50])]
    return "\n".join(lines) + "\n"


def _spread(seconds: list[float]) -> str:
    if not seconds:
        return "none"
    return f"{len(seconds)} between {seconds[0]} s and {seconds[-1]} s"


def _verdict_text(report: TwoHostReport) -> str:
    load = report.load
    if report.outcome == "PASSED":
        return f"PASSED: all {load['orders_asked']} orders placed, 0 lost, 0 duplicates"
    if report.outcome == "INCOMPLETE":
        return f"INCOMPLETE: placed {load['orders_placed']} of {load['orders_asked']} orders"
    return "FAILED (see the problems below)"
