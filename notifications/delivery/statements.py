"""The hot path's writes as single SQL statements: one round trip each instead of the ORM's
read-then-write sequences. Only the common case is here; anything unusual takes the ORM path
in claims.py and outcomes.py, which this must agree with (the same columns, the same rules).

Table names come from the models, so a renamed table cannot leave a stale statement behind."""

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Model

from infra.prepared import prepared_cursor
from messaging.models import ProcessedEvent
from notifications.delivery.circuit import CLOSED, CircuitSeen
from notifications.models import (
    DeliveryAttempt,
    EmailTemplateVersion,
    Notification,
    ProviderCircuit,
    Suppression,
)
from orders.models import Order

_ACCEPTED = f"""
WITH attempt AS (
    UPDATE {DeliveryAttempt._meta.db_table}
       SET finished_at = %(now)s, outcome = 'accepted', http_status = %(http_status)s, error = '',
           provider_message_id = %(message_id)s, duration_ms = %(duration_ms)s
     WHERE id = %(attempt_id)s
), sent AS (
    UPDATE {Notification._meta.db_table}
       SET status = 'sent', status_changed_at = %(now)s, sent_at = %(now)s,
           provider_message_id = %(message_id)s, lease_owner = '', lease_expires_at = NULL,
           error_class = '', last_error = '', last_error_detail = '', evidence_deadline = NULL
     WHERE id = %(notification_id)s AND status <> 'sent'
    RETURNING kind, created_at
), inbox AS (
    INSERT INTO {ProcessedEvent._meta.db_table} (event_id, handler, result, processed_at)
    VALUES (%(event_id)s, %(inbox_key)s, 'sent', %(now)s)
    ON CONFLICT DO NOTHING
)
SELECT kind, created_at FROM sent
"""


@dataclass(frozen=True)
class MarkedSent:
    kind: str
    created_at: datetime


def accepted_record(
    *,
    attempt_id: int,
    notification_id: int,
    event_id: uuid.UUID,
    inbox_key: str,
    message_id: str,
    http_status: int | None,
    duration_ms: int,
    now: datetime,
) -> MarkedSent | None:
    """The provider accepted the email: finish the attempt, mark the notification sent
    (whoever holds the lease now: acceptance is a fact) and write the inbox row, atomically
    in one statement. None when another delivery had already marked it sent."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _ACCEPTED,
            {
                "attempt_id": attempt_id,
                "notification_id": notification_id,
                "event_id": event_id,
                "inbox_key": inbox_key,
                "message_id": message_id,
                "http_status": http_status,
                "duration_ms": duration_ms,
                "now": now,
            },
        )
        row = cursor.fetchone()
    return MarkedSent(kind=row[0], created_at=row[1]) if row else None


def columns_of(model: type[Model], alias: str) -> str:
    return ", ".join(
        f"{alias}.{connection.ops.quote_name(field.column)}" for field in model._meta.concrete_fields
    )


def _attnames(model: type[Model]) -> list[str]:
    return [field.attname for field in model._meta.concrete_fields]


# The provider's circuit (circuit.py) comes along with every claim's read, unlocked: no row
# means closed.
CIRCUIT_COLUMNS = "c.state, c.failures, c.retry_at, c.probe_until, c.paused_by"
CIRCUIT_JOIN = f"LEFT JOIN {ProviderCircuit._meta.db_table} c ON c.provider = %(provider)s"

# Lock order everywhere: the order row, then the notification; PostgreSQL locks them in the
# order of FOR ... OF (tests/integration/test_claim_lock_order.py shows it). The subqueries say
# what tracking.suppression.suppression_active and content.sources.live_version say.
_CLAIM_READ = f"""
SELECT {columns_of(Order, "o")}, {columns_of(Notification, "n")},
       EXISTS (SELECT 1 FROM {ProcessedEvent._meta.db_table} i
                WHERE i.event_id = %(event_id)s AND i.handler = %(inbox_key)s),
       (SELECT s.id FROM {Suppression._meta.db_table} s
         WHERE lower(s.address) = lower(o.customer_email) AND s.lifted_at IS NULL LIMIT 1),
       (SELECT v.id FROM {EmailTemplateVersion._meta.db_table} v
         WHERE v.kind = %(kind)s AND v.locale = o.locale
           AND v.published_at IS NOT NULL AND v.retired_at IS NULL LIMIT 1),
       {CIRCUIT_COLUMNS}
  FROM {Order._meta.db_table} o
  JOIN {Notification._meta.db_table} n ON n.order_id = o.id AND n.kind = %(kind)s
  {CIRCUIT_JOIN}
 WHERE o.id = %(order_id)s
   FOR NO KEY UPDATE OF o, n
"""
_ORDER_ATTNAMES = _attnames(Order)
_NOTIFICATION_ATTNAMES = _attnames(Notification)
_NOTIFICATION_COLUMNS = {
    field.attname: field.get_attname_column()[1] for field in Notification._meta.concrete_fields
}


@dataclass(frozen=True)
class ClaimRead:
    order: Order
    notification: Notification
    processed: bool  # the inbox already has this event
    suppression_id: int | None  # the address's active suppression
    template_id: int | None  # the live EmailTemplateVersion of the kind in the order's language
    circuit: CircuitSeen = CLOSED  # the provider's circuit breaker


def claim_read(
    *, order_id: uuid.UUID, kind: str, event_id: uuid.UUID, inbox_key: str, provider: str
) -> ClaimRead | None:
    """The order and its notification of `kind` under their row locks, whether the inbox has
    the event, the address's active suppression and the live wording override: one round
    trip. None when the order or the notification does not exist (the caller's slower path
    tells the two apart). Must run inside the claim's transaction."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _CLAIM_READ,
            {
                "order_id": order_id,
                "kind": kind,
                "event_id": event_id,
                "inbox_key": inbox_key,
                "provider": provider,
            },
        )
        row = cursor.fetchone()
    return None if row is None else claim_read_of(row)


def attempt_start(
    notification: Notification,
    *,
    event_id: uuid.UUID,
    worker: str,
    recipient: str,
    now: datetime,
    fields: dict[str, Any],
) -> tuple[int, int]:
    """Write the notification's `fields` and the next attempt row, sent to `recipient`, in one
    statement; return the attempt's (id, number). `attempt_count` is incremented by the
    statement itself."""
    assignments = ", ".join(
        f"{connection.ops.quote_name(_NOTIFICATION_COLUMNS[name])} = %({name})s" for name in fields
    )
    statement = f"""
        WITH claimed AS (
            UPDATE {Notification._meta.db_table}
               SET {assignments}, attempt_count = attempt_count + 1
             WHERE id = %(notification_id)s
            RETURNING attempt_count
        )
        INSERT INTO {DeliveryAttempt._meta.db_table}
               (notification_id, event_id, number, worker, started_at, outcome, error, provider_message_id,
                recipient)
        SELECT %(notification_id)s, %(event_id)s, attempt_count, %(worker)s, %(now)s, '', '', '',
               %(recipient)s
          FROM claimed
        RETURNING id, number
    """
    with prepared_cursor() as cursor:
        cursor.execute(
            statement,
            {
                **fields,
                "notification_id": notification.pk,
                "event_id": event_id,
                "worker": worker,
                "recipient": recipient,
                "now": now,
            },
        )
        attempt_id, number = cursor.fetchone()
    return attempt_id, number


def claim_read_of(row: tuple[Any, ...]) -> ClaimRead:
    split = len(_ORDER_ATTNAMES)
    end = split + len(_NOTIFICATION_ATTNAMES)
    order = Order.from_db(connection.alias, _ORDER_ATTNAMES, row[:split])
    notification = Notification.from_db(connection.alias, _NOTIFICATION_ATTNAMES, row[split:end])
    processed, suppression_id, template_id, state, failures, retry_at, probe_until, paused_by = row[end:]
    notification.order = order
    circuit = CLOSED if state is None else CircuitSeen(state, failures, retry_at, probe_until, paused_by)
    return ClaimRead(
        order,
        notification,
        processed,
        suppression_id=suppression_id,
        template_id=template_id,
        circuit=circuit,
    )
