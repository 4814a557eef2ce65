"""The drill's report: JSON for machines, a Markdown table for people
(docs/drills/drill-latest.*). Orders asked and orders placed stand side by side, so a drill
whose load fell short cannot read like one that did its work."""

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tools.drill.broker_faults import NOTHING_TO_JUDGE, nothing_to_judge
from tools.drill.database_report import database_rows
from tools.drill.invoice_verdict import invoice_report_rows
from tools.drill.load import LoadResult
from tools.drill.platform_load import PlatformLoad


@dataclass
class DrillReport:
    config: dict
    verdict: dict
    passed: bool
    outcome: str  # PASSED, FAILED (lost, doubled or unsettled) or INCOMPLETE (the load fell short)
    chaos: dict
    faults_injected: dict
    load: dict
    seconds_to_settle: float
    seconds_total: float
    delivery: dict  # the webhooks' half of the verdict (tools/drill/delivery_verdict.py)
    # In platform mode, the verdict per order of the shop's deliveries (platform_verdict.py)
    platform: dict = field(default_factory=dict)
    # On a database cluster: its settings and the client's retried answers (harness.py)
    database: dict = field(default_factory=dict)


def load_summary(load: LoadResult) -> dict:
    """What the load did, for the report: asked and placed side by side, and what it gave up."""
    platform = (
        {"deliveries": load.deliveries, "copies": load.copies, "answers": load.answers, "edits": load.edits}
        if isinstance(load, PlatformLoad)
        else {}
    )
    return platform | {
        "orders_asked": load.orders_asked,
        "orders_placed": len(load.accepted),
        "paid": len(load.paid),
        "cancelled": len(load.cancelled),
        "requests_retried": load.retried_requests,
        "requests_throttled": load.throttled_requests,
        "requests_given_up": len(load.given_up_requests),
        "requests_given_up_first": load.given_up_requests[:20],
    }


def report_write(report: DrillReport, directory: Path, name: str = "latest") -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"drill-{name}.json"
    json_path.write_text(json.dumps(asdict(report), indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / f"drill-{name}.md"
    markdown_path.write_text(report_markdown(report))
    return json_path, markdown_path


def report_markdown(report: DrillReport) -> str:
    v, c, load = report.verdict, report.chaos, report.load
    rows = [
        ("verdict", _verdict_text(report)),
        ("orders asked", load["orders_asked"]),
        *_placed_rows(report),
        ("orders in the database", v["orders"]),
        ("emails expected", v["emails_expected"]),
        ("emails accepted by the provider", v["emails_accepted"]),
        ("by kind: expected / sent / accepted", _by_kind(v.get("by_kind", {}))),
        *invoice_report_rows(v.get("invoices", {})),
        ("duplicates", v["duplicates"]),
        ("lost", v["lost"]),
        ("accepted but recorded as not sent", v["unexpected"]),
        ("unfinished notifications", v["unfinished"]),
        ("waiting for a person (failed / needs review)", v["parked"]),
        ("unpublished outbox events", v["unpublished_events"]),
        ("sent emails by delivery state (webhooks)", _counts(report.delivery["states"])),
        ("sent emails without a delivery state", report.delivery["sent_without_state"]),
        (
            "webhook events posted / stored once / unapplied",
            f"{report.delivery['webhook_events']} / {report.delivery['events_stored']} / "
            f"{report.delivery['events_unapplied']}",
        ),
        ("webhook events posted twice on purpose", report.delivery["webhook_duplicates"]),
        ("webhook posts in all (with retries)", report.delivery["webhook_posts"]),
        ("webhooks given up by the provider", report.delivery["webhooks_given_up"]),
        ("worker kills (SIGKILL)", c["worker_kills"]),
        ("relay kills (SIGKILL)", c["relay_kills"]),
        ("RabbitMQ nodes", report.config.get("cluster", 1)),
        ("RabbitMQ restarts (SIGKILL, start)", c["broker_restarts"]),
        *_node_kill_rows(c.get("broker_kills", [])),
        *database_rows(report.database, c.get("database_faults", []), v),
        ("database connection drops", c["database_terminations"]),
        ("events published again (copies)", c["republished_copies"]),
        ("provider faults injected", _counts(report.faults_injected)),
        *(
            []
            if report.platform  # the shop's webhooks use no API token
            else [("API throttle per token (API_THROTTLE_RATE)", report.config["api_throttle_rate"])]
        ),
        ("client requests retried", load["requests_retried"]),
        ("client requests throttled (429, waited out)", load["requests_throttled"]),
        ("client requests given up", load["requests_given_up"]),
        ("time to settle after the stream", f"{report.seconds_to_settle} s"),
        ("whole drill", f"{report.seconds_total} s"),
    ]
    lines = ["| | |", "|---|---|", *(f"| {label} | {value} |" for label, value in rows)]
    problems = [*v["problems"], *report.delivery["problems"], *report.platform.get("problems", [])]
    if problems:
        lines += ["", "Problems:", *(f"- {problem}" for problem in problems)]
    if load["requests_given_up_first"]:
        lines += ["", "Requests given up (the first 20):"]
        lines += [f"- {request}" for request in load["requests_given_up_first"]]
    return "\n".join(lines) + "\n"


def _placed_rows(report: DrillReport) -> list[tuple[str, object]]:
    """How the orders came in: the API's 201s, or a shop's webhook deliveries and what of them."""
    load, platform = report.load, report.platform
    if not platform:
        return [("orders placed (201 from the API)", load["orders_placed"])]
    answers = ", ".join(f"{word} {n}" for word, n in sorted(load.get("answers", {}).items())) or "none"
    outcomes = ", ".join(f"{o} {n}" for o, n in sorted(platform["deliveries_by_outcome"].items())) or "none"
    return [
        ("orders placed (every delivery of the order answered 200)", load["orders_placed"]),
        (
            "Shopify deliveries: events / posts (2 to 4 copies each, spread, out of order)",
            f"{load['deliveries']} / {load['copies']}",
        ),
        ("their answers", answers),
        ("deliveries stored, by outcome", outcomes),
        (
            "shop orders sent / stored / not as sent",
            f"{platform['orders_sent']} / {platform['orders_stored']} / {platform['orders_wrong']}",
        ),
        (
            "orders edited in the shop / edits applied / created as edited (the edit came first)",
            f"{load['edits']} / {platform['edits_applied']} / {platform['created_as_edited']}",
        ),
    ]


def _node_kill_rows(kills: list[dict]) -> list[tuple[str, str]]:
    """A cluster drill's node kills, each with its failover times (tools/drill/broker_faults.py)."""
    rows = []
    for number, kill in enumerate(kills, start=1):
        leader = (
            f"new leader {kill['new_leader']} after {kill['seconds_to_new_leader']} s"
            if kill["role"] == "leader"
            else "leader unchanged"
        )
        rows.append(
            (
                f"node kill {number}: SIGKILL {kill['node']}, {kill['role']} of orders.confirmations",
                f"{leader}; first confirmed publish into it {_publish_text(kill)}; {_restart_text(kill)}",
            )
        )
        if "consumers_back" in kill:
            rows.append(
                (
                    f"node kill {number}: workers and relays that lost it, back after (connected / first"
                    " message taken)",
                    _consumers_back_text(kill["consumers_back"]),
                )
            )
        for key, step in (("commit_to_queue", "confirmed in the queue"), ("commit_to_sent", "email sent")):
            if kill.get(f"{key}_after"):
                rows.append(
                    (
                        f"node kill {number}: commit → {step}, orders of the 10 s after it"
                        " (of the 10 s before it)",
                        f"{_window_text(kill[f'{key}_after'])} ({_window_text(kill.get(f'{key}_before'))})",
                    )
                )
    return rows


def _publish_text(kill: dict) -> str:
    """The first confirmed publish after a kill, or why there is none to judge."""
    publish = kill["seconds_to_confirmed_publish"]
    if not kill.get("orders_flowing", True):
        return "not measured (the stream had ended)"
    if publish is not None:
        return f"after {publish} s"
    if nothing_to_judge(kill):
        return f"not judged ({NOTHING_TO_JUDGE})"
    return "not seen within the wait"


def _restart_text(kill: dict) -> str:
    """When the drill started the node again (once its waits were over) and when it was back:
    the node's own boot is the difference."""
    if "seconds_to_start" not in kill:  # a report from before
        return f"node started again, back after {kill['seconds_to_restart']} s"
    return (
        f"node started again after {kill['seconds_to_start']} s (once measured),"
        f" back after {kill['seconds_to_restart']} s"
    )


def _consumers_back_text(backs: list[dict]) -> str:
    """Each consumer's seconds from the kill (tools/drill/consumers_back.py); "never" when its
    log shows no reconnection or no message after it."""
    if not backs:
        return "none was connected to it"

    def seconds(value: float | None) -> str:
        return "never" if value is None else f"{value} s"

    return "; ".join(
        f"{back['log']} {seconds(back['seconds_to_connected'])} / {seconds(back['seconds_to_first_message'])}"
        for back in backs
    )


def _window_text(window: dict | None) -> str:
    """A window's delays; the orders that never got there (unpublished, unsent), if any."""
    if not window:
        return "no orders"
    left = "".join(f", {window[key]} {key}" for key in ("unpublished", "unsent") if window.get(key))
    return (
        f"{window['events']} orders: p50 {window['p50']} s, p99 {window['p99']} s,"
        f" max {window['max']} s{left}"
    )


def _counts(counts: dict) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) or "none"


def _by_kind(by_kind: dict[str, dict[str, int]]) -> str:
    return (
        "; ".join(
            f"{kind.removeprefix('order_')} {n['expected']} / {n['sent']} / {n['accepted']}"
            + (f" ({n['skipped']} skipped as they may be)" if n.get("skipped") else "")
            for kind, n in by_kind.items()
            if n["expected"] or n["accepted"] or n.get("skipped")
        )
        or "none"
    )


def _verdict_text(report: DrillReport) -> str:
    load = report.load
    if report.outcome == "PASSED":
        return f"PASSED: all {load['orders_asked']} orders placed, 0 lost, 0 duplicates"
    if report.outcome == "INCOMPLETE":
        return (
            f"INCOMPLETE: placed {load['orders_placed']} of {load['orders_asked']} orders, "
            f"gave up on {load['requests_given_up']} requests, throttled {load['requests_throttled']} times"
        )
    return "FAILED (see the problems below)"
