"""Creating a notification: pending from the commit of the change that calls for it."""

import uuid

from django.db.models import Subquery
from django.utils import timezone

from messaging.models import OutboxEvent
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import Notification
from orders.events import AGGREGATE as ORDER_AGGREGATE
from orders.models import Order
from orders.selectors import subject_order_id


def notification_create_pending_for_event(event: OutboxEvent) -> None:
    """The record hook of the email event types (notifications/events.py): runs in the
    transaction that records the event, so the email's status is visible from that commit on.
    An event about the order is the order's email; an event about a shipment is that
    shipment's email, of the shipment's order."""
    kind, aggregate_id = EMAIL_KIND_OF_EVENT[event.event_type], uuid.UUID(event.aggregate_id)
    if event.aggregate_type == ORDER_AGGREGATE:
        notification_create_pending(order_id=aggregate_id, kind=kind)
        return
    order_id = subject_order_id(event.aggregate_type, aggregate_id)
    if order_id is None:  # the writer records the event with its row: a bug, never a state
        raise ValueError(f"{event.event_type}: there is no {event.aggregate_type} {aggregate_id}")
    notification_create_pending(order_id=order_id, kind=kind, subject_id=aggregate_id)


def notification_create_pending(
    *, order_id: uuid.UUID, kind: str, subject_id: uuid.UUID | None = None
) -> None:
    """One INSERT … ON CONFLICT DO NOTHING: the unique (order, kind) of the order's own emails,
    and (kind, subject) of the others, make a second one a no-op. It records the order's
    content version of this moment, read by the INSERT itself (no statement more): the version
    the event being recorded saw."""
    content_version = Order.objects.filter(pk=order_id).values("content_version")[:1]
    Notification.objects.bulk_create(
        [
            Notification(
                order_id=order_id,
                kind=kind,
                subject_id=subject_id,
                idempotency_key=notification_idempotency_key(
                    order_id=order_id, kind=kind, subject_id=subject_id
                ),
                status_changed_at=timezone.now(),
                content_version=Subquery(content_version),
            )
        ],
        ignore_conflicts=True,
    )


# A fixed namespace: the key for (kind, order) is the same in every process and after a
# database restore, so the provider recognises a resend of the same email.
_IDEMPOTENCY_NAMESPACE = uuid.UUID("6f1c9a52-4c1e-4a53-9d8e-0f6ad3f2b7a1")


def notification_idempotency_key(
    *, order_id: uuid.UUID, kind: str, version: int = 1, subject_id: uuid.UUID | None = None
) -> str:
    """Version 1 is the key every email starts with; a reviewer's "send again under a new key"
    moves to the next version, derived the same way (the same in every process). An email
    about a shipment is named by the shipment: an order has several."""
    name = f"{kind}:{subject_id or order_id}"
    if version > 1:
        name += f":v{version}"
    return str(uuid.uuid5(_IDEMPOTENCY_NAMESPACE, name))
