"""What the product did across each database failover of the drill (tools/drill/database_faults.py),
read once the drill has settled: from the database with plain SQL, and from the load's own
record of the answers it had to retry.

For each fault: the seconds from the kill to the first order committed on the new primary (the
first order created after the kill that the cluster has: nothing committed after the kill can
be on the old primary, dead or frozen, and a write it took after its thaw would not be there),
and to the first email sent of an order committed after the kill (an email of an older order
may have reached the provider just after the kill, its outcome written later: that says
nothing about the new primary); the orders committed after it; and the answers
the client retried, by status, in the gap (from the kill to that first commit) and until the
next fault. The failover's own problems fail the drill: no new primary, the old node not back
as a standby, a write the old node confirmed after the takeover, a 500 (a gap is answered 503).
"""

from collections import Counter
from datetime import datetime, timedelta

import psycopg
import requests

from tools.drill.database_fence import fence_lost
from tools.drill.sql import one_row


def gap_measures(dsn: str, faults: list[dict], retried_answers: list[tuple[float, str]]) -> None:
    """Adds the product's side of each fault to it (module doc)."""
    kills = [datetime.fromisoformat(fault["killed_at"]) for fault in faults]
    with psycopg.connect(dsn) as connection:
        for fault, killed in zip(faults, kills, strict=True):
            count, first_order = one_row(
                connection.execute(
                    "SELECT count(*), min(created_at) FROM orders_order WHERE created_at > %s", [killed]
                )
            )
            first_email = one_row(
                connection.execute(
                    "SELECT min(n.sent_at) FROM notifications_notification n"
                    " JOIN orders_order o ON o.id = n.order_id WHERE o.created_at > %s",
                    [killed],
                )
            )[0]
            fault["orders_committed_after"] = count
            fault["seconds_to_first_commit"] = _seconds(killed, first_order)
            fault["seconds_to_first_email"] = _seconds(killed, first_email)
    ends: list[datetime | None] = [*kills[1:], None]
    for fault, killed, end in zip(faults, kills, ends, strict=True):
        first_commit = fault["seconds_to_first_commit"]
        gap_end = end if first_commit is None else killed + timedelta(seconds=first_commit)
        fault["answers_in_gap"] = answers_between(retried_answers, killed, gap_end)
        fault["answers_until_next_fault"] = answers_between(retried_answers, killed, end)
        if fault.get("fence"):
            fence_lost(dsn, fault["fence"])


def confirmed_parts_lost(dsn: str, shipments: dict[str, str], refunds: dict[str, str]) -> dict[str, int]:
    """The parcels and refunds the API confirmed (201, or 200 for one it had) that the database
    does not have: a write a failover took back after the client was told of it."""
    with psycopg.connect(dsn) as connection:
        stored = {
            table: {row[0] for row in connection.execute(f"SELECT id::text FROM orders_{table}")}
            for table in ("shipment", "refund")
        }
    return {
        "shipments": len(set(shipments) - stored["shipment"]),
        "refunds": len(set(refunds) - stored["refund"]),
    }


def emails_unknown_to_the_database(dsn: str, mailsim_url: str) -> int:
    """Emails the provider accepted under a key the database has no email for: an email sent for
    an order, or from an email's record, that a failover then took back."""
    with psycopg.connect(dsn) as connection:
        known = {
            row[0]
            for row in connection.execute(
                "SELECT idempotency_key FROM notifications_notification"
                " UNION SELECT key FROM notifications_retiredkey"
            )
        }
    messages = requests.get(f"{mailsim_url}/_sim/messages", timeout=30).json()["messages"]
    return sum(message["idempotency_key"] not in known for message in messages)


def answers_between(
    answers: list[tuple[float, str]], start: datetime | None, end: datetime | None
) -> dict[str, int]:
    """The retried answers (time.time(), status) from `start` to `end` (None: without a bound),
    by status."""
    first = start.timestamp() if start is not None else float("-inf")
    last = end.timestamp() if end is not None else float("inf")
    return dict(sorted(Counter(status for at, status in answers if first <= at < last).items()))


def _seconds(start: datetime, end: datetime | None) -> float | None:
    return None if end is None else round((end - start).total_seconds(), 2)


def database_problems(
    faults: list[dict],
    retried_answers: list[tuple[float, str]],
    *,
    unknown_emails: int = 0,
    parts_lost: dict[str, int] | None = None,
) -> list[str]:
    """What fails a database drill besides losses and duplicates (module doc)."""
    problems = [
        f"{n} {what} the API confirmed are not in the database" for what, n in (parts_lost or {}).items() if n
    ]
    if unknown_emails:
        problems.append(f"the provider accepted {unknown_emails} emails the database has no record of")
    for fault in faults:
        node = fault["node"]
        if fault["new_primary"] is None:
            problems.append(f"no new primary after {node}'s {fault['kind']}")
        if fault["seconds_to_rejoin"] is None:
            problems.append(
                f"{node} did not come back as a standby of the new primary after its {fault['kind']}"
            )
        if fault["rewound"] == "failed":
            problems.append(f"pg_rewind failed on {node}")
        fence = fault.get("fence") or {}
        if fence.get("confirmed"):
            lost = fence.get("confirmed_then_lost")
            problems.append(
                f"{node} confirmed {fence['confirmed']} writes after {fault['new_primary']} took over"
                + ("" if lost is None else f"; {lost} of them are not in the database")
            )
        if fault.get("orders_flowing") and fault.get("orders_committed_after") == 0:
            problems.append(
                f"no order was committed after {node}'s {fault['kind']}, while orders were placed"
            )
    errors = Counter(status for _, status in retried_answers if status.startswith("5") and status != "503")
    problems += [
        f"the web answered {status} {n} times (no primary is answered 503)" for status, n in errors.items()
    ]
    return problems
