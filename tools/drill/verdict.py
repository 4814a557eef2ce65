"""The verdict of a drill, from the mail simulator's own records and the database, read with
plain SQL: never from the code under test.

The rules it checks (docs/failure-handling.md): every order has a confirmation that is sent,
or skipped because the order was cancelled before it went out; every cancelled order has a
sent cancellation; every parcel and every refund not told by a cancellation has its own email,
sent (a parcel's skipped with a confirmation skipped for a cancellation); every change of an
order has its email, sent or skipped for a cancellation; every piece of a
parcel's news that recorded an email has it, sent, or skipped as old news ("out for delivery"
or a failed attempt found the parcel delivered by its turn) or with its parcel's; the simulator
accepted each sent email exactly once, under its key, and never more emails of a kind for a
customer than were sent; nothing is left unfinished or unpublished. Counted per kind.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import psycopg
import requests

from tools.drill.invoice_verdict import invoice_rows, invoice_summary, invoice_verdict
from tools.drill.sql import one_row

FINAL = {"sent", "skipped", "failed", "needs_review", "rejected"}
# ("in transit" only on a stack with PARCEL_IN_TRANSIT_EMAIL on)
LATER_NEWS_KINDS = ("parcel_out_for_delivery", "parcel_delivered", "parcel_delivery_failed")
PARCEL_NEWS_KINDS = ("parcel_in_transit", *LATER_NEWS_KINDS)
KINDS = (
    "order_confirmation",
    "order_edit",
    "order_cancellation",
    "order_shipment",
    "order_refund",
    "order_invoice",
    *PARCEL_NEWS_KINDS,
)
# The email each piece of a parcel's news recorded (ShipmentEvent.email_event), as its kind.
_NEWS_KIND = " ".join(f"WHEN '{kind.replace('_', '.', 1)}' THEN '{kind}'" for kind in PARCEL_NEWS_KINDS)


@dataclass
class Verdict:
    orders: int = 0
    emails_expected: int = 0
    emails_accepted: int = 0
    duplicates: int = 0  # more emails of a kind accepted for a customer than were sent (or one key twice)
    lost: int = 0  # expected emails the simulator never accepted
    unexpected: int = 0  # accepted emails for a notification recorded as not sent
    unfinished: int = 0  # notifications not in a final state
    parked: int = 0  # failed or needs review: waiting for a person, with a reason
    parked_without_reason: int = 0
    unpublished_events: int = 0
    orders_lost_by_the_api: int = 0  # 201 answered, but no order in the database
    # Per email kind: expected, sent, and accepted by the simulator.
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    invoices: dict = field(default_factory=dict)  # count and sum per kind, … (with `invoices`)
    invoice_faults: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (
            self.duplicates or self.lost or self.unexpected or self.unfinished or self.parked_without_reason
        ) and not (self.unpublished_events or self.orders_lost_by_the_api or self.invoice_faults)


def verdict_compute(
    database_dsn: str,
    mailsim_url: str,
    accepted_by_api: set[str],
    *,
    other_providers: Sequence[str] = (),
    invoices: bool = False,
) -> Verdict:
    """`other_providers`: the simulators of the other providers the product sends through (a
    fallback's): every email must be accepted once across all of them. `invoices`: invoice_verdict.py too."""
    verdict = Verdict(
        by_kind={kind: {"expected": 0, "sent": 0, "accepted": 0, "skipped": 0} for kind in KINDS}
    )
    with psycopg.connect(database_dsn) as connection:
        orders: dict[str, str] = dict(
            connection.execute("SELECT id::text, status FROM orders_order").fetchall()
        )
        notifications = connection.execute(
            "SELECT n.order_id::text, n.kind, n.subject_id::text, n.status, n.idempotency_key, n.last_error, "
            "o.customer_email FROM notifications_notification n JOIN orders_order o ON o.id = n.order_id"
        ).fetchall()
        retired = connection.execute(
            "SELECT r.key, n.kind, o.customer_email FROM notifications_retiredkey r "
            "JOIN notifications_notification n ON n.id = r.notification_id "
            "JOIN orders_order o ON o.id = n.order_id"
        ).fetchall()
        parts = connection.execute(
            "SELECT id::text, order_id::text, 'order_shipment' FROM orders_shipment UNION ALL "
            "SELECT id::text, order_id::text, 'order_refund' FROM orders_refund WHERE NOT in_cancellation "
            "UNION ALL SELECT id::text, order_id::text, 'order_edit' FROM orders_orderedit "
            "UNION ALL SELECT id::text, order_id::text, 'order_invoice' FROM orders_invoice "
            "WHERE email_kind = 'order_invoice' "
            "UNION ALL SELECT s.id::text, s.order_id::text, CASE e.email_event "
            f"{_NEWS_KIND} END FROM orders_shipmentevent e JOIN orders_shipment s ON s.id = e.shipment_id "
            "WHERE e.email_event <> ''"
        ).fetchall()
        delivered = {
            parcel
            for (parcel,) in connection.execute(
                "SELECT id::text FROM orders_shipment WHERE progress = 'delivered'"
            ).fetchall()
        }
        verdict.unpublished_events = one_row(
            connection.execute("SELECT count(*) FROM messaging_outboxevent WHERE published_at IS NULL")
        )[0]
        documents = invoice_rows(connection) if invoices else None
    messages = [
        message
        for url in (mailsim_url, *other_providers)
        for message in requests.get(f"{url}/_sim/messages", timeout=30).json()["messages"]
    ]
    verdict.orders = len(orders)
    verdict.emails_accepted = len(messages)
    verdict.orders_lost_by_the_api = len(accepted_by_api - set(orders))
    by_key = Counter(message["idempotency_key"] for message in messages)
    _count_duplicates(verdict, messages, notifications, retired)
    _check_order_emails(verdict, orders, notifications, by_key)
    _check_part_emails(verdict, orders, parts, notifications, by_key, delivered)
    if documents is not None:
        judged = invoice_verdict(documents, messages)
        verdict.invoices, verdict.invoice_faults, found = invoice_summary(judged)
        verdict.problems += found[:20]
    return verdict


def _count_duplicates(verdict: Verdict, messages: list, notifications: list, retired: list) -> None:
    """Whatever its key, an email of a kind accepted for a customer more often than emails of
    that kind are recorded for them is a duplicate (a customer's parcels are several emails of
    one kind, each once). An email under a key the database does not know (its order was lost
    by a restore) counts against the others of its customer and subject only."""
    kind_of_key = {key: (kind, address) for _, kind, _, _, key, _, address in notifications}
    kind_of_key |= {key: (kind, address) for key, kind, address in retired}
    accepted: Counter = Counter()
    unknown: Counter = Counter()
    for message in messages:
        known = kind_of_key.get(message["idempotency_key"])
        if known is None:
            unknown[(",".join(message["to"]), message["subject"])] += 1
            continue
        kind, address = known
        accepted[(address, kind)] += 1
        if kind in verdict.by_kind:
            verdict.by_kind[kind]["accepted"] += 1
    # Each recorded email may have been accepted once, whatever its status says (an unknown
    # outcome may have gone out): more than that is a second email.
    recorded = Counter((address, kind) for _, kind, _, _, _, _, address in notifications)
    for (address, kind), n in accepted.items():
        if n > recorded[(address, kind)]:
            verdict.duplicates += n - recorded[(address, kind)]
            verdict.problems.append(
                f"{address} got {n} {kind} emails; {recorded[(address, kind)]} are recorded"
            )
    for (address, subject), n in unknown.items():
        if n > 1:
            verdict.duplicates += n - 1
            verdict.problems.append(
                f"{address} got {n} emails '{subject}' under keys the database does not know"
            )
    for key, n in Counter(m["idempotency_key"] for m in messages).items():
        if n > 1:
            verdict.duplicates += n - 1
            verdict.problems.append(f"the provider accepted {n} emails under the key {key}")


def _check_order_emails(verdict: Verdict, orders: dict, notifications: list, by_key: Counter) -> None:
    emails = {
        (order_id, kind): (status, key, reason)
        for order_id, kind, subject, status, key, reason, _ in notifications
        if subject is None
    }
    for order_id, order_status in orders.items():
        wanted = ["order_confirmation"] + (["order_cancellation"] if order_status == "cancelled" else [])
        for kind in wanted:
            status, key, reason = emails.get((order_id, kind), ("missing", None, ""))
            if kind == "order_confirmation" and status == "skipped" and order_status == "cancelled":
                verdict.unexpected += by_key.get(key, 0)  # skipped, yet the provider has it
                continue
            _expect_sent(verdict, f"order {order_id}", kind, status, key, reason, by_key)


def _check_part_emails(
    verdict: Verdict, orders: dict, parts: list, notifications: list, by_key: Counter, delivered: set[str]
) -> None:
    """`delivered`: the parcels delivered (their news of "out for delivery" or a failed attempt
    may be skipped as old news)."""
    emails = {
        (subject, kind): (status, key, reason)
        for _, kind, subject, status, key, reason, _ in notifications
        if subject
    }
    for part_id, order_id, kind in parts:
        status, key, reason = emails.get((part_id, kind), ("missing", None, ""))
        if status == "skipped" and _may_be_skipped(kind, part_id, order_id, orders, emails, delivered):
            verdict.unexpected += by_key.get(key, 0)  # skipped, yet the provider has it
            verdict.by_kind[kind]["skipped"] += 1
            continue
        _expect_sent(verdict, f"{kind} {part_id} of order {order_id}", kind, status, key, reason, by_key)


def _may_be_skipped(
    kind: str, part_id: str, order_id: str, orders: dict, emails: dict, delivered: set[str]
) -> bool:
    """A parcel's email skipped with a confirmation skipped for a cancellation, a change's for
    a cancellation; a parcel's news skipped with its parcel's email, or as old news once the
    parcel was delivered ("in transit" also once a later step of the parcel has its email)."""
    cancelled = orders.get(order_id) == "cancelled"
    if kind in ("order_shipment", "order_edit"):
        return cancelled
    if kind not in PARCEL_NEWS_KINDS:
        return False
    parcel_email = emails.get((part_id, "order_shipment"), ("missing", None, ""))[0]
    old_news = kind != "parcel_delivered" and part_id in delivered
    if kind == "parcel_in_transit":
        old_news = old_news or any((part_id, later) in emails for later in LATER_NEWS_KINDS)
    return old_news or (parcel_email == "skipped" and cancelled)


def _expect_sent(
    verdict: Verdict, what: str, kind: str, status: str, key: str | None, reason: str, by_key: Counter
) -> None:
    verdict.emails_expected += 1
    verdict.by_kind[kind]["expected"] += 1
    if status in ("failed", "needs_review"):
        verdict.parked += 1
        verdict.parked_without_reason += 0 if reason else 1
    elif status not in FINAL:
        verdict.unfinished += 1
        verdict.problems.append(f"{what}: {kind} is {status}")
    elif status == "sent" and by_key.get(key, 0) == 0:
        verdict.lost += 1
        verdict.problems.append(f"{what}: {kind} recorded sent, the provider never accepted it")
    elif status != "sent":
        verdict.lost += 1
        verdict.problems.append(f"{what}: {kind} is {status}, expected sent")
    else:
        verdict.by_kind[kind]["sent"] += 1


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
