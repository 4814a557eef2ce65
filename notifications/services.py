"""Creating a notification: pending from the commit of the change that calls for it."""

import uuid

from django.db import connection
from django.utils import timezone

from infra.prepared import prepared_cursor
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
    the event being recorded saw.

    Every order's transaction runs it, so it is one prepared statement (infra/prepared.py)
    whose text is made once from the model: the ORM spent longer compiling its INSERT with a
    subquery, and PostgreSQL planning it, than the INSERT took (docs/performance.md)."""
    row = Notification(
        order_id=order_id,
        kind=kind,
        subject_id=subject_id,
        idempotency_key=notification_idempotency_key(order_id=order_id, kind=kind, subject_id=subject_id),
        status_changed_at=timezone.now(),
    )
    values = [field.get_db_prep_save(field.pre_save(row, True), connection) for field in _INSERTED_FIELDS]
    with prepared_cursor() as cursor:
        cursor.execute(_INSERT_PENDING, [*values, order_id])


# Every column the ORM would write for a new row (not the id, the database's own), with the
# order's content version read in the same statement.
_INSERTED_FIELDS = [
    field
    for field in Notification._meta.concrete_fields
    if not field.primary_key and field.attname != "content_version"
]
_INSERT_PENDING = (
    f"INSERT INTO {connection.ops.quote_name(Notification._meta.db_table)} "
    f"({', '.join(connection.ops.quote_name(field.column) for field in _INSERTED_FIELDS)}, content_version) "
    f"VALUES ({', '.join(['%s'] * len(_INSERTED_FIELDS))}, "
    f"(SELECT content_version FROM {connection.ops.quote_name(Order._meta.db_table)} WHERE id = %s)) "
    "ON CONFLICT DO NOTHING"
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
