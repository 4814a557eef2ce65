"""Writing events: the outbox row commits with the change it describes, or not at all."""

import uuid
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from notifications.envelope import Envelope
from notifications.identity import current_process_name
from notifications.models import Notification, OutboxEvent
from notifications.registry import EventType
from notifications.relay.relay import relay_publish_committed


def order_event_emit(*, order, event_type: EventType) -> OutboxEvent:
    """Record an order event and the pending notification it will produce, if any.

    Must run inside the transaction that changed the order. The row is born claimed by this
    process, so the beat sweep leaves it alone while the on-commit hook publishes it; if this
    process dies first, the claim runs out and the sweep publishes it instead.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("order_event_emit must run inside the order's transaction")
    event = outbox_event_build(order=order, event_type=event_type)
    event.next_attempt_at = event.created_at + timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS)
    event.claimed_by = current_process_name()
    event.save(force_insert=True)
    if event_type.notification_kind:
        notification_create_pending(order=order, kind=event_type.notification_kind)
    # The row itself goes to the hook: it was written here and is ours until the claim runs out.
    transaction.on_commit(partial(relay_publish_committed, events=[event]), robust=True)
    return event


def outbox_event_build(*, order, event_type: EventType) -> OutboxEvent:
    """The outbox row of an order event, not yet saved and not claimed by anyone."""
    now = timezone.now()
    envelope = Envelope(
        event_id=uuid.uuid4(),
        event_type=event_type.name,
        schema_version=max(event_type.schema_versions),
        order_id=order.id,
        occurred_at=now,
    )
    return OutboxEvent(
        id=envelope.event_id,
        event_type=event_type.name,
        aggregate_type="order",
        aggregate_id=str(order.id),
        schema_version=envelope.schema_version,
        payload=envelope.as_message(),
        created_at=now,
    )


def notification_create_pending(*, order, kind: str) -> None:
    """The notification exists from the order's commit on, so its status is visible at once.
    One INSERT … ON CONFLICT DO NOTHING: the unique (order, kind) makes a second one a no-op."""
    Notification.objects.bulk_create([_pending(order, kind)], ignore_conflicts=True)


def notification_expect(*, order, kind: str) -> Notification:
    """The notification of (order, kind), created pending if it does not exist yet."""
    notification, _ = Notification.objects.get_or_create(
        order=order,
        kind=kind,
        defaults={
            "idempotency_key": notification_idempotency_key(order_id=order.id, kind=kind),
            "status_changed_at": timezone.now(),
        },
    )
    return notification


def _pending(order, kind: str) -> Notification:
    return Notification(
        order=order,
        kind=kind,
        idempotency_key=notification_idempotency_key(order_id=order.id, kind=kind),
        status_changed_at=timezone.now(),
    )


# A fixed namespace: the key for (kind, order) is the same in every process and after a
# database restore, so the provider recognises a resend of the same email.
_IDEMPOTENCY_NAMESPACE = uuid.UUID("6f1c9a52-4c1e-4a53-9d8e-0f6ad3f2b7a1")


def notification_idempotency_key(*, order_id: uuid.UUID, kind: str) -> str:
    return str(uuid.uuid5(_IDEMPOTENCY_NAMESPACE, f"{kind}:{order_id}"))
