"""The ledger: per day, email kind and currency, what the shop accepted against what its
emails became, in counts and in order amounts.

Two sources are compared: the orders (what the API accepted, and which of them expect which
email: findings.EXPECTED_EMAILS) and the notifications. "Done" is an email sent, or closed
without one by a rule (skipped: cancelled before its confirmation, a suppressed address) or
by a reviewer (rejected). Everything else is the difference a person must see: with a
reviewer, still on its way, or missing altogether.
"""

from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Count, F, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import TruncDate

from notifications.models import Notification
from operations.reconciliation.findings import EXPECTED_EMAILS, EXPECTED_SUBJECT_EMAILS
from orders.content import minor_to_amount
from orders.models import Order

Status = Notification.Status
BUCKETS = {
    "sent": Q(email_status=Status.SENT),
    "closed": Q(email_status__in=(Status.SKIPPED, Status.REJECTED)),
    "with_person": Q(email_status__in=Notification.NEEDS_PERSON_STATUSES),
    "unfinished": Q(email_status__in=Notification.UNFINISHED_STATUSES),
    "missing": Q(email_status__isnull=True),
}
OPEN_BUCKETS = ("with_person", "unfinished", "missing")


def ledger_rows(*, since: datetime) -> list[dict[str, Any]]:
    """One row per day (the order's, local time), kind and currency, newest day first; the
    amounts as strings (JSON keeps them exact)."""
    rows: list[dict[str, Any]] = []
    for kind, expected in EXPECTED_EMAILS.items():
        status = Subquery(Notification.objects.filter(order=OuterRef("pk"), kind=kind).values("status")[:1])
        counted: dict[str, Any] = {"accepted": Count("id"), "accepted_amount": Sum("amount")}
        for bucket, condition in BUCKETS.items():
            counted[bucket] = Count("id", filter=condition)
            counted[f"{bucket}_amount"] = Sum("amount", filter=condition)
        grouped = (
            Order.objects.filter(expected, created_at__gte=since)
            .annotate(day=TruncDate("created_at"), email_status=status)
            .values("day", "currency")
            .annotate(**counted)
        )
        rows.extend(_row(kind, values) for values in grouped)
    rows.extend(_subject_rows(since=since))
    return sorted(rows, key=lambda row: (row["day"], row["kind"], row["currency"]), reverse=True)


def _subject_rows(*, since: datetime) -> list[dict[str, Any]]:
    """The same for the parts of an order with an email each (parcels, refunds), by the day they
    were announced: a refund counts its own amount, a parcel none."""
    rows: list[dict[str, Any]] = []
    for kind, parts in EXPECTED_SUBJECT_EMAILS.items():
        status = Subquery(
            Notification.objects.filter(kind=kind, subject_id=OuterRef("pk")).values("status")[:1]
        )
        amount = "amount_minor" if kind == Notification.Kind.ORDER_REFUND else None
        counted: dict[str, Any] = {"accepted": Count("id"), "accepted_amount": _minor_sum(amount)}
        for bucket, condition in BUCKETS.items():
            counted[bucket] = Count("id", filter=condition)
            counted[f"{bucket}_amount"] = _minor_sum(amount, condition)
        grouped = (
            parts()
            .filter(created_at__gte=since)
            .annotate(day=TruncDate("created_at"), email_status=status, currency=F("order__currency"))
            .values("day", "currency")
            .annotate(**counted)
        )
        for values in grouped:
            for name in ("accepted", *BUCKETS):
                values[f"{name}_amount"] = minor_to_amount(values[f"{name}_amount"] or 0, values["currency"])
            rows.append(_row(kind, values))
    return rows


def _minor_sum(field: str | None, condition: Q | None = None) -> Any:
    return Sum(field, filter=condition) if field else Value(0)


def _row(kind: str, values: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"day": values["day"].isoformat(), "kind": kind, "currency": values["currency"]}
    for name in ("accepted", *BUCKETS):
        row[name] = values[name]
        row[f"{name}_amount"] = str(values[f"{name}_amount"] or Decimal("0.00"))
    row["done"] = row["sent"] + row["closed"]
    row["done_amount"] = str(Decimal(row["sent_amount"]) + Decimal(row["closed_amount"]))
    row["open"] = sum(row[bucket] for bucket in OPEN_BUCKETS)
    row["open_amount"] = str(sum((Decimal(row[f"{b}_amount"]) for b in OPEN_BUCKETS), Decimal("0.00")))
    return row


def ledger_balanced(rows: list[dict[str, Any]]) -> bool:
    return all(row["open"] == 0 for row in rows)
