"""What reconcile finds about our own emails: each a Finding about one order's email."""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import partial

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from messaging.models import OutboxEvent, ProcessedEvent
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import Notification, ReconcileMismatch
from orders.content import minor_to_amount
from orders.models import Order, OrderEdit, Refund, Shipment
from orders.parcel_progress import EVENT_OF_STATUS

Problem = ReconcileMismatch.Problem
UNFINISHED = Notification.UNFINISHED_STATUSES
LIMIT = 1000  # per problem and run: more than this is an incident, not a reconciliation
# Which orders expect which email: every accepted order its confirmation, every cancelled
# order its cancellation.
EXPECTED_EMAILS = {
    Notification.Kind.ORDER_CONFIRMATION: Q(),
    Notification.Kind.ORDER_CANCELLATION: Q(status=Order.Status.CANCELLED),
}
# And which parts of an order expect an email of their own: every parcel, every refund not
# told by its order's cancellation, every change of an order, and every parcel whose news
# recorded an email of that kind
# (orders/parcel_progress.py: at most one of each per parcel, counted on the parcel's day).
# (What they are about is the email's subject_id.)
EXPECTED_SUBJECT_EMAILS: dict[
    Notification.Kind, Callable[[], QuerySet[Shipment] | QuerySet[Refund] | QuerySet[OrderEdit]]
] = {
    Notification.Kind.ORDER_SHIPMENT: lambda: Shipment.objects.all(),
    Notification.Kind.ORDER_REFUND: lambda: Refund.objects.filter(in_cancellation=False),
    Notification.Kind.ORDER_EDIT: lambda: OrderEdit.objects.all(),
    **{
        Notification.Kind(kind): partial(Shipment.objects.filter, events__email_event=event_type)
        for event_type, kind in EMAIL_KIND_OF_EVENT.items()
        if event_type in EVENT_OF_STATUS.values()
    },
}


@dataclass(frozen=True)
class Finding:
    problem: str
    # "<order id>:<kind>", "<shipment or refund id>:<kind>" or "provider-event:<id>": one open
    # mismatch per subject
    subject: str
    day: date
    detail: str
    kind: str = ""
    order_id: uuid.UUID | None = None
    notification_id: int | None = None
    provider_event_id: uuid.UUID | None = None
    amount: Decimal | None = None
    currency: str = ""
    owner_id: int | None = None  # the email's own reviewer, when it has one


@dataclass
class Found:
    """The findings of one problem; `complete` is False when LIMIT cut the list short (the
    run then closes none of that problem's open mismatches: it did not look at them all)."""

    problem: str
    findings: list[Finding]
    complete: bool


def subject_of(order_id: uuid.UUID, kind: str) -> str:
    return f"{order_id}:{kind}"


def missing_emails(*, since: datetime, before: datetime) -> Found:
    """Accepted orders (older than `before`) without the email they expect."""
    findings: list[Finding] = []
    for kind, expected in EXPECTED_EMAILS.items():
        email = Notification.objects.filter(order=OuterRef("pk"), kind=kind)
        orders = Order.objects.filter(expected, created_at__gte=since, created_at__lt=before).filter(
            ~Exists(email)
        )
        for order in orders.order_by("created_at")[: LIMIT + 1 - len(findings)]:
            findings.append(
                _about(
                    order,
                    kind,
                    Problem.MISSING_EMAIL,
                    f"Order accepted {local_time(order.created_at)} has no {kind} email.",
                )
            )
    for kind, parts in EXPECTED_SUBJECT_EMAILS.items():
        email = Notification.objects.filter(kind=kind, subject_id=OuterRef("pk"))
        missing = parts().filter(created_at__gte=since, created_at__lt=before).filter(~Exists(email))
        for part in missing.select_related("order").order_by("created_at")[: LIMIT + 1 - len(findings)]:
            findings.append(
                Finding(
                    problem=Problem.MISSING_EMAIL,
                    subject=subject_of(part.pk, kind),
                    day=timezone.localdate(part.created_at),
                    detail=f"{part} announced {local_time(part.created_at)} has no {kind} email.",
                    kind=kind,
                    order_id=part.order_id,
                    amount=part_amount(part),
                    currency=part.order.currency,
                )
            )
    return found_of(Problem.MISSING_EMAIL, findings)


def part_amount(part: Shipment | Refund | OrderEdit) -> Decimal:
    """A refund's amount; a parcel or a change has none of its own (0)."""
    if isinstance(part, Refund):
        return minor_to_amount(part.amount_minor, part.order.currency)
    return Decimal("0")


def stuck_emails(*, before: datetime) -> Found:
    """Unfinished since before `before`, with nobody holding a live lease on it."""
    now = timezone.now()
    rows = (
        Notification.objects.filter(status__in=UNFINISHED, status_changed_at__lt=before)
        .filter(Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now))
        .select_related("order")
        .order_by("status_changed_at")[: LIMIT + 1]
    )
    return found_of(
        Problem.STUCK,
        [
            _about(n.order, n.kind, Problem.STUCK, f"{n.status} since {local_time(n.status_changed_at)}.", n)
            for n in rows
        ],
    )


def waiting_for_person(*, since: datetime) -> Found:
    rows = (
        Notification.objects.filter(
            status__in=Notification.NEEDS_PERSON_STATUSES, order__created_at__gte=since
        )
        .select_related("order")
        .order_by("status_changed_at")[: LIMIT + 1]
    )
    return found_of(
        Problem.WAITING_FOR_PERSON,
        [
            _about(
                n.order,
                n.kind,
                Problem.WAITING_FOR_PERSON,
                f"{n.get_status_display()} since {local_time(n.status_changed_at)}: "
                f"{n.last_error or 'no reason recorded'}",
                n,
            )
            for n in rows
        ],
    )


def published_but_unprocessed(*, since: datetime, before: datetime) -> list[OutboxEvent]:
    """Email events published before `before` that no handler finished, whose email is not
    finished or with a person either: a lost message, for the repair to publish again. (Its
    email is also found stuck or missing: the mismatch is that one.)"""
    processed = ProcessedEvent.objects.filter(event_id=OuterRef("id"))
    candidates = OutboxEvent.objects.filter(
        created_at__gte=since, published_at__lt=before, event_type__in=list(EMAIL_KIND_OF_EVENT)
    ).filter(~Exists(processed))[:LIMIT]
    lost = []
    for event in candidates:
        kind = EMAIL_KIND_OF_EVENT[event.event_type]
        status = (
            Notification.objects.filter(order_id=event.aggregate_id, kind=kind)
            .values_list("status", flat=True)
            .first()
        )
        if status is None or status in UNFINISHED:
            lost.append(event)
    return lost


def _about(
    order: Order, kind: str, problem: str, detail: str, notification: Notification | None = None
) -> Finding:
    return Finding(
        problem=problem,
        subject=subject_of(order.pk, kind),
        day=timezone.localdate(order.created_at),
        detail=detail,
        kind=kind,
        order_id=order.pk,
        notification_id=notification.pk if notification else None,
        amount=order.amount,
        currency=order.currency,
        owner_id=notification.owner_id if notification else None,
    )


def found_of(problem: str, findings: list[Finding]) -> Found:
    return Found(problem, findings[:LIMIT], complete=len(findings) <= LIMIT)


def local_time(moment: datetime | None) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}" if moment else "at an unknown time"


def window_start(now: datetime, days: int) -> datetime:
    """Midnight (local) `days - 1` days before today: the ledger's and the findings' window."""
    first = timezone.localdate(now) - timedelta(days=days - 1)
    return timezone.make_aware(datetime.combine(first, datetime.min.time()))
