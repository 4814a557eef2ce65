"""Reconcile: compare what was accepted with what was completed, and find what is stuck.

Run daily by beat and by hand after an incident or a database restore. Every finding is
safe to repair by publishing the event again: the inbox makes a processed event a no-op,
and the notification's idempotency key makes a resend within the provider's window one
email. Each run is stored as a ReconcileReport (shown in the admin).
"""

from datetime import datetime, timedelta
from typing import Any, TypedDict

from django.db.models import Count, Exists, OuterRef, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from messaging.models import OutboxEvent, ProcessedEvent
from messaging.relay.publisher import PublishError
from messaging.relay.relay import outbox_events_publish
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import Notification, ReconcileReport
from notifications.selectors import notification_outbox_event
from orders.models import Order

UNFINISHED = Notification.UNFINISHED_STATUSES
LOOKBACK = timedelta(days=2)  # older history is the retention job's, not reconcile's


class StuckNotification(TypedDict):
    notification: int
    order: str
    kind: str
    status: str
    since: str


class Findings(TypedDict):
    per_day_and_kind: list[dict[str, Any]]
    orders_without_confirmation: list[str]
    stuck_notifications: list[StuckNotification]
    published_but_unprocessed_events: list[str]


class Repair(TypedDict, total=False):
    """Empty when nothing was to be republished; `error` when the broker was away."""

    republished: list[str]
    failed: dict[str, str]  # event id: reason
    error: str


def reconcile_run(*, stuck_after: timedelta = timedelta(minutes=15), repair: bool = False) -> ReconcileReport:
    started = timezone.now()
    stuck = _stuck_notifications(started - stuck_after)
    unprocessed = _published_but_unprocessed(started - stuck_after)
    findings: Findings = {
        "per_day_and_kind": _per_day_and_kind(),
        "orders_without_confirmation": _orders_without_confirmation(),
        "stuck_notifications": [_describe(n) for n in stuck],
        "published_but_unprocessed_events": [str(event.id) for event in unprocessed],
    }
    repaired = _republish({notification_outbox_event(n) for n in stuck} | set(unprocessed)) if repair else {}
    return ReconcileReport.objects.create(
        started_at=started,
        finished_at=timezone.now(),
        summary=_summary(findings, repaired),
        findings=findings,
        repaired=repaired,
    )


def _per_day_and_kind() -> list[dict[str, Any]]:
    rows = (
        Notification.objects.annotate(day=TruncDate("created_at"))
        .values("day", "kind")
        .annotate(
            accepted=Count("id"),
            sent=Count("id", filter=Q(status=Notification.Status.SENT)),
            skipped=Count("id", filter=Q(status=Notification.Status.SKIPPED)),
            failed=Count("id", filter=Q(status=Notification.Status.FAILED)),
            needs_review=Count("id", filter=Q(status=Notification.Status.NEEDS_REVIEW)),
            rejected=Count("id", filter=Q(status=Notification.Status.REJECTED)),
            unfinished=Count("id", filter=Q(status__in=UNFINISHED)),
        )
        .order_by("-day", "kind")[:60]
    )
    return [{**row, "day": row["day"].isoformat()} for row in rows]


def _orders_without_confirmation() -> list[str]:
    has_confirmation = Notification.objects.filter(
        order=OuterRef("pk"), kind=Notification.Kind.ORDER_CONFIRMATION
    )
    return [
        str(pk) for pk in Order.objects.filter(~Exists(has_confirmation)).values_list("pk", flat=True)[:1000]
    ]


def _stuck_notifications(before: datetime) -> list[Notification]:
    """Unfinished for too long, with nobody holding a live lease on it."""
    now = timezone.now()
    return list(
        Notification.objects.filter(status__in=UNFINISHED, status_changed_at__lt=before)
        .filter(Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now))
        .select_related("order")[:1000]
    )


def _published_but_unprocessed(before: datetime) -> list[OutboxEvent]:
    """Effect-once events published a while ago (within the last days) that no handler has
    finished, and whose notification is not with a person either."""
    processed = ProcessedEvent.objects.filter(event_id=OuterRef("id"))
    candidates = OutboxEvent.objects.filter(
        created_at__gte=before - LOOKBACK, published_at__lt=before, event_type__in=list(EMAIL_KIND_OF_EVENT)
    ).filter(~Exists(processed))[:1000]
    unfinished = []
    for event in candidates:
        kind = EMAIL_KIND_OF_EVENT[event.event_type]
        status = (
            Notification.objects.filter(order_id=event.aggregate_id, kind=kind)
            .values_list("status", flat=True)
            .first()
        )
        if status is None or status in UNFINISHED:
            unfinished.append(event)
    return unfinished


def _republish(events: set[OutboxEvent | None]) -> Repair:
    found = sorted((event for event in events if event is not None), key=lambda event: event.created_at)
    if not found:
        return {}
    try:
        report = outbox_events_publish(found)
    except PublishError as exc:
        return {"error": f"broker unreachable, nothing republished: {exc}"}
    return {
        "republished": [str(event.id) for event in found if event.id not in report.failures],
        "failed": {str(event_id): reason for event_id, reason in report.failures.items()},
    }


def _describe(notification: Notification) -> StuckNotification:
    return {
        "notification": notification.pk,
        "order": str(notification.order_id),
        "kind": notification.kind,
        "status": notification.status,
        "since": notification.status_changed_at.isoformat(),
    }


def _summary(findings: Findings, repaired: Repair) -> str:
    parts = [
        f"{len(findings['stuck_notifications'])} stuck notification(s)",
        f"{len(findings['published_but_unprocessed_events'])} published but unprocessed event(s)",
        f"{len(findings['orders_without_confirmation'])} order(s) without a confirmation",
    ]
    if repaired.get("republished"):
        parts.append(f"{len(repaired['republished'])} event(s) republished")
    if repaired.get("error"):
        parts.append(repaired["error"])
    return "; ".join(parts)
