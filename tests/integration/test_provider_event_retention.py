"""Provider events do not pile up: the hourly retention job deletes applied ones older than
PROVIDER_EVENT_RETENTION_DAYS, and keeps one not yet applied and one that is the evidence of
a decision still standing (an active suppression, an open reconciliation mismatch)."""

import uuid
from datetime import timedelta

import pytest
from django.core import checks
from django.utils import timezone

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from messaging.tasks import retention_task
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import ProviderEvent, ReconcileMismatch, Suppression
from notifications.tracking.intake import provider_event_store
from notifications.tracking.normalised import Kind, TrackingEvent
from tests.factories import NotificationFactory

pytestmark = pytest.mark.django_db

DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)


def _event(*, days_old: int, applied: bool = True, bounced: bool = False) -> ProviderEvent:
    """An event stored as the webhook stores it, applied as a worker applies it, then aged
    (a hard bounce suppresses the address when applied)."""
    notification = NotificationFactory.create(status="sent", provider="resend")
    event = TrackingEvent(
        provider="resend",
        provider_event_id=f"msg_{uuid.uuid4().hex}",
        kind=Kind.BOUNCED if bounced else Kind.DELIVERED,
        occurred_at=timezone.now(),
        provider_message_id="",
        idempotency_key=notification.idempotency_key,
        recipient=notification.order.customer_email,
        hard_bounce=bounced,
        description="no such user" if bounced else "",
        payload={"type": "email.bounced" if bounced else "email.delivered"},
    )
    assert provider_event_store(event)
    stored = ProviderEvent.objects.get(provider_event_id=event.provider_event_id)
    if applied:
        outbox = OutboxEvent.objects.get(event_type=PROVIDER_EVENT_RECEIVED, aggregate_id=str(stored.pk))
        event_dispatch(raw_envelope=outbox.payload, delivery=DELIVERY)
    ProviderEvent.objects.filter(pk=stored.pk).update(received_at=timezone.now() - timedelta(days=days_old))
    return stored


def _mismatch(event: ProviderEvent, *, resolved: bool) -> ReconcileMismatch:
    now = timezone.now()
    return ReconcileMismatch.objects.create(
        problem=ReconcileMismatch.Problem.PROVIDER_UNKNOWN_KEY,
        subject=f"provider-event:{event.pk}",
        day=now.date(),
        provider_event=event,
        detail="the provider reports an email we have no record of",
        due_at=now,
        first_found_at=now,
        last_found_at=now,
        resolved_at=now if resolved else None,
    )


def test_the_hourly_job_deletes_old_applied_events_and_keeps_those_still_needed(settings):
    settings.PROVIDER_EVENT_RETENTION_DAYS = 30
    _event(days_old=31)  # the one to go
    recent, unapplied = _event(days_old=29), _event(days_old=31, applied=False)
    suppressing, once_suppressing = _event(days_old=40, bounced=True), _event(days_old=40, bounced=True)
    Suppression.objects.filter(provider_event=once_suppressing).update(lifted_at=timezone.now())
    in_open_mismatch, in_resolved_mismatch = _event(days_old=40), _event(days_old=40)
    _mismatch(in_open_mismatch, resolved=False)
    resolved = _mismatch(in_resolved_mismatch, resolved=True)
    # when: what beat sends every hour (the task function, called here)
    result = retention_task()
    # then
    assert result["provider_events_deleted"] == 3
    assert set(ProviderEvent.objects.values_list("pk", flat=True)) == {
        recent.pk,
        unapplied.pk,
        suppressing.pk,
        in_open_mismatch.pk,
    }
    lifted = Suppression.objects.get(lifted_at__isnull=False)
    assert (lifted.provider_event_id, lifted.detail) == (None, "no such user")  # its words stay
    resolved.refresh_from_db()
    assert resolved.provider_event_id is None


def test_an_outbox_event_naming_a_deleted_provider_event_changes_nothing(settings):
    settings.PROVIDER_EVENT_RETENTION_DAYS = 30
    gone = _event(days_old=31)
    outbox = OutboxEvent.objects.get(event_type=PROVIDER_EVENT_RECEIVED, aggregate_id=str(gone.pk))
    retention_task()
    # when: its outbox event is delivered again (a replay, say)
    result = event_dispatch(raw_envelope=outbox.payload, delivery=DELIVERY)
    # then
    assert result == "duplicate"
    assert not ProviderEvent.objects.filter(pk=gone.pk).exists()


def test_a_retention_shorter_than_the_reconciliation_window_is_refused_at_start_up(settings):
    settings.PROVIDER_EVENT_RETENTION_DAYS = 3
    errors = [e for e in checks.run_checks() if e.id == "notifications.E007"]
    assert [e.msg for e in errors] == [
        "PROVIDER_EVENT_RETENTION_DAYS (3) must be at least 7: the daily reconciliation compares "
        "that many days of sent emails with them."
    ]
