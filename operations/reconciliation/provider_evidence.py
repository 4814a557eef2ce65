"""The provider's word against ours: its delivery events (notifications/tracking/) compared
with our `sent` rows, both ways.

- sent by us, silent at the provider: a provider that reports events at all (it reported one
  for another of our emails in the window) said nothing about this one an hour after we
  counted it sent. Its webhook may be failing, or the email never left.
- reported by the provider, not sent by us: the customer got an email we count as failed,
  rejected or skipped (or have no record of: a key no notification carries, as after a
  database restore). Events younger than a few minutes are left to the worker applying them.
"""

from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from notifications.models import Notification, ProviderEvent, ReconcileMismatch
from notifications.providers.base import TEST_KEY_PREFIX
from operations.reconciliation.findings import (
    LIMIT,
    Finding,
    Found,
    found_of,
    local_time,
    subject_of,
)

Problem = ReconcileMismatch.Problem
EVIDENCE_GRACE = timedelta(hours=1)  # a provider's events come within minutes; an hour is silence
APPLY_GRACE = timedelta(minutes=10)  # a stored event waits this long for the worker to apply it
NOT_SENT = (Notification.Status.FAILED, Notification.Status.REJECTED, Notification.Status.SKIPPED)


def sent_without_evidence(*, since: datetime, now: datetime) -> Found:
    reporting = set(
        ProviderEvent.objects.filter(received_at__gte=since, notification__isnull=False)
        .values_list("notification__provider", flat=True)
        .distinct()
    )
    # Evidence of the send we count: an event under its current key, or found by the message id
    # only a sent email carries. One under a key a reviewer replaced is about an earlier send.
    evidence = ProviderEvent.objects.filter(notification=OuterRef("pk")).filter(
        Q(idempotency_key=OuterRef("idempotency_key")) | Q(idempotency_key="")
    )
    rows = (
        Notification.objects.filter(
            status=Notification.Status.SENT,
            provider__in=reporting,
            sent_at__gte=since,
            sent_at__lt=now - EVIDENCE_GRACE,
        )
        .filter(~Exists(evidence))
        .select_related("order")
        .order_by("sent_at")[: LIMIT + 1]
    )
    return found_of(Problem.NO_PROVIDER_EVIDENCE, [_silent(n) for n in rows])


def reported_but_not_sent(*, since: datetime, now: datetime) -> tuple[Found, Found]:
    """Events about emails we count as not sent, and events about keys we do not know."""
    events = (
        ProviderEvent.objects.filter(received_at__gte=since, received_at__lt=now - APPLY_GRACE)
        .exclude(idempotency_key__startswith=TEST_KEY_PREFIX)
        .select_related("notification__order")
        .order_by("received_at")
    )
    contradicted: dict[str, Finding] = {}
    unknown: list[Finding] = []
    for event in events.filter(notification__status__in=NOT_SENT)[: LIMIT + 1]:
        finding = _contradicted(event)
        contradicted.setdefault(finding.subject, finding)  # one per email, however many events
    for event in events.filter(notification__isnull=True)[: LIMIT + 1]:
        unknown.append(_unknown(event))
    return found_of(Problem.PROVIDER_SENT_UNSENT, list(contradicted.values())), found_of(
        Problem.PROVIDER_UNKNOWN_KEY, unknown
    )


def _silent(notification: Notification) -> Finding:
    return Finding(
        problem=Problem.NO_PROVIDER_EVIDENCE,
        subject=subject_of(notification.order_id, notification.kind),
        day=timezone.localdate(notification.order.created_at),
        detail=f"Sent {local_time(notification.sent_at)} through {notification.provider}; "
        "the provider has reported nothing about it. Check its log for this email.",
        kind=notification.kind,
        order_id=notification.order_id,
        notification_id=notification.pk,
        amount=notification.order.amount,
        currency=notification.order.currency,
    )


def _contradicted(event: ProviderEvent) -> Finding:
    notification = event.notification
    assert notification is not None  # filtered on its status
    return Finding(
        problem=Problem.PROVIDER_SENT_UNSENT,
        subject=subject_of(notification.order_id, notification.kind),
        day=timezone.localdate(notification.order.created_at),
        detail=f"{event.provider} reported '{event.kind}' at {local_time(event.occurred_at)}, "
        f"but the email is {notification.get_status_display()}: the customer has it. "
        "If it was sent, mark it sent; otherwise tell the provider.",
        kind=notification.kind,
        order_id=notification.order_id,
        notification_id=notification.pk,
        provider_event_id=event.pk,
        amount=notification.order.amount,
        currency=notification.order.currency,
        owner_id=notification.owner_id,
    )


def _unknown(event: ProviderEvent) -> Finding:
    return Finding(
        problem=Problem.PROVIDER_UNKNOWN_KEY,
        subject=f"provider-event:{event.pk}",
        day=timezone.localdate(event.received_at),
        detail=f"{event.provider} reported '{event.kind}' for key '{event.idempotency_key or '-'}' "
        f"(message {event.provider_message_id or '-'}), which no email of ours carries "
        "(an order the database lost in a restore?).",
        provider_event_id=event.pk,
    )
