"""The verdict of a drill, from the mail simulator's own records and the database, read with
plain SQL: never from the code under test.

The rules it checks (docs/failure-handling.md): every order has a confirmation that is sent,
or skipped because the order was cancelled before it went out; every cancelled order has a
sent cancellation; the simulator accepted each sent email exactly once, under its key, and
nothing else for that customer and kind; nothing is left unfinished or unpublished.
"""

from collections import Counter
from dataclasses import dataclass, field

import psycopg
import requests

from tools.drill.sql import one_row

FINAL = {"sent", "skipped", "failed", "needs_review", "rejected"}


@dataclass
class Verdict:
    orders: int = 0
    emails_expected: int = 0
    emails_accepted: int = 0
    duplicates: int = 0  # extra emails for one customer and kind (or one key)
    lost: int = 0  # expected emails the simulator never accepted
    unexpected: int = 0  # accepted emails for a notification recorded as not sent
    unfinished: int = 0  # notifications not in a final state
    parked: int = 0  # failed or needs review: waiting for a person, with a reason
    parked_without_reason: int = 0
    unpublished_events: int = 0
    orders_lost_by_the_api: int = 0  # 201 answered, but no order in the database
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (
            self.duplicates or self.lost or self.unexpected or self.unfinished or self.parked_without_reason
        ) and not (self.unpublished_events or self.orders_lost_by_the_api)


def verdict_compute(database_dsn: str, mailsim_url: str, accepted_by_api: set[str]) -> Verdict:
    verdict = Verdict()
    with psycopg.connect(database_dsn) as connection:
        orders: dict[str, str] = dict(
            connection.execute("SELECT id::text, status FROM orders_order").fetchall()
        )
        notifications = connection.execute(
            "SELECT order_id::text, kind, status, idempotency_key, last_error FROM notifications_notification"
        ).fetchall()
        verdict.unpublished_events = one_row(
            connection.execute("SELECT count(*) FROM messaging_outboxevent WHERE published_at IS NULL")
        )[0]
    messages = requests.get(f"{mailsim_url}/_sim/messages", timeout=30).json()["messages"]
    verdict.orders = len(orders)
    verdict.emails_accepted = len(messages)
    verdict.orders_lost_by_the_api = len(accepted_by_api - set(orders))
    by_key = Counter(message["idempotency_key"] for message in messages)
    by_customer_and_kind = Counter((tuple(m["to"]), m["subject"].rsplit(" ", 1)[-1]) for m in messages)
    # One customer, one kind: more than one accepted email is a duplicate, whatever its key.
    verdict.duplicates = sum(n - 1 for n in by_customer_and_kind.values() if n > 1)
    _check_notifications(verdict, orders, notifications, by_key)
    return verdict


def _check_notifications(verdict: Verdict, orders: dict, notifications: list, by_key: Counter) -> None:
    kinds = {(order_id, kind): (status, key, reason) for order_id, kind, status, key, reason in notifications}
    for order_id, order_status in orders.items():
        wanted = ["order_confirmation"] + (["order_cancellation"] if order_status == "cancelled" else [])
        for kind in wanted:
            status, key, reason = kinds.get((order_id, kind), ("missing", None, ""))
            if kind == "order_confirmation" and status == "skipped" and order_status == "cancelled":
                verdict.unexpected += by_key.get(key, 0)  # skipped, yet the provider has it
                continue
            verdict.emails_expected += 1
            if status in ("failed", "needs_review"):
                verdict.parked += 1
                verdict.parked_without_reason += 0 if reason else 1
            elif status not in FINAL:
                verdict.unfinished += 1
                verdict.problems.append(f"order {order_id}: {kind} is {status}")
            elif status == "sent" and by_key.get(key, 0) == 0:
                verdict.lost += 1
                verdict.problems.append(
                    f"order {order_id}: {kind} recorded sent, the provider never accepted it"
                )
            elif status != "sent":
                verdict.lost += 1
                verdict.problems.append(f"order {order_id}: {kind} is {status}, expected sent")


def unfinished_counts(dsn: str) -> tuple[int, int]:
    """Notifications not in a final state, and outbox events not published."""
    with psycopg.connect(dsn) as connection:
        unfinished = one_row(
            connection.execute(
                "SELECT count(*) FROM notifications_notification WHERE NOT (status = ANY(%s))", [list(FINAL)]
            )
        )[0]
        unpublished = one_row(
            connection.execute("SELECT count(*) FROM messaging_outboxevent WHERE published_at IS NULL")
        )[0]
    return unfinished, unpublished
