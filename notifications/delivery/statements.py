"""The hot path's statements, one round trip each instead of the ORM's read-then-write
sequences, for one delivery or a batch of them alike (a single delivery is a batch of one):
the claim's locked read, the claim's write, and the accepted outcome. Anything unusual takes
the ORM path in claims.py and outcomes.py.

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


def columns_of(model: type[Model], alias: str) -> str:
    return ", ".join(
        f"{alias}.{connection.ops.quote_name(field.column)}" for field in model._meta.concrete_fields
    )


def _attnames(model: type[Model]) -> list[str]:
    return [field.attname for field in model._meta.concrete_fields]


# Every (order, kind) wanted, in one round trip: the order and its notification under their row
# locks, whether the inbox has the event, the address's active suppression (what
# tracking.suppression.suppression_active says), the live wording override (what
# content.sources.live_version says) and the provider's circuit (circuit.py), unlocked: no row
# means closed. Lock order everywhere: the order row, then its notification (PostgreSQL locks
# them in the order of FOR ... OF), row after row in order id order (LockRows runs above the
# sort); so claims never deadlock with each other or with an order's change
# (tests/integration/test_claim_lock_order.py shows both).
_CLAIM_READ = f"""
WITH wanted (position, order_id, kind, event_id, inbox_key) AS (
    SELECT * FROM unnest(%(positions)s::int[], %(order_ids)s::uuid[], %(kinds)s::text[],
                         %(event_ids)s::uuid[], %(inbox_keys)s::text[])
)
SELECT w.position, {columns_of(Order, "o")}, {columns_of(Notification, "n")},
       EXISTS (SELECT 1 FROM {ProcessedEvent._meta.db_table} i
                WHERE i.event_id = w.event_id AND i.handler = w.inbox_key),
       (SELECT s.id FROM {Suppression._meta.db_table} s
         WHERE lower(s.address) = lower(o.customer_email) AND s.lifted_at IS NULL LIMIT 1),
       (SELECT v.id FROM {EmailTemplateVersion._meta.db_table} v
         WHERE v.kind = w.kind AND v.locale = o.locale
           AND v.published_at IS NOT NULL AND v.retired_at IS NULL LIMIT 1),
       c.state, c.failures, c.retry_at, c.probe_until, c.paused_by
  FROM wanted w
  JOIN {Order._meta.db_table} o ON o.id = w.order_id
  JOIN {Notification._meta.db_table} n ON n.order_id = o.id AND n.kind = w.kind
  LEFT JOIN {ProviderCircuit._meta.db_table} c ON c.provider = %(provider)s
 ORDER BY o.id, n.id
   FOR NO KEY UPDATE OF o, n
"""
_ORDER_ATTNAMES = _attnames(Order)
_NOTIFICATION_ATTNAMES = _attnames(Notification)
_NOTIFICATION_COLUMNS = {
    field.attname: field.get_attname_column()[1] for field in Notification._meta.concrete_fields
}


@dataclass(frozen=True)
class ClaimKey:
    order_id: uuid.UUID
    kind: str
    event_id: uuid.UUID
    inbox_key: str


@dataclass(frozen=True)
class ClaimRead:
    order: Order
    notification: Notification
    processed: bool  # the inbox already has this event
    suppression_id: int | None  # the address's active suppression
    template_id: int | None  # the live EmailTemplateVersion of the kind in the order's language
    circuit: CircuitSeen = CLOSED  # the provider's circuit breaker


def claim_reads(keys: list[ClaimKey], *, provider: str) -> dict[int, ClaimRead]:
    """What each claim reads, by position in `keys`; a position is missing when its order or
    notification does not exist (the caller's slower path tells the two apart). Each
    (order, kind) must appear once: a second delivery of the same email must read what the
    first one's claim wrote. Must run inside the claim's transaction."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _CLAIM_READ,
            {
                "positions": list(range(len(keys))),
                "order_ids": [key.order_id for key in keys],
                "kinds": [key.kind for key in keys],
                "event_ids": [key.event_id for key in keys],
                "inbox_keys": [key.inbox_key for key in keys],
                "provider": provider,
            },
        )
        rows = cursor.fetchall()
    return {row[0]: _claim_read_of(row[1:]) for row in rows}


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


_ACCEPTED = f"""
WITH accepted (attempt_id, notification_id, event_id, inbox_key, message_id, http_status, duration_ms) AS (
    SELECT * FROM unnest(%(attempt_ids)s::bigint[], %(notification_ids)s::bigint[], %(event_ids)s::uuid[],
                         %(inbox_keys)s::text[], %(message_ids)s::text[], %(http_statuses)s::int[],
                         %(durations)s::int[])
), attempt AS (
    UPDATE {DeliveryAttempt._meta.db_table} a
       SET finished_at = %(now)s, outcome = 'accepted', http_status = x.http_status, error = '',
           provider_message_id = x.message_id, duration_ms = x.duration_ms
      FROM accepted x
     WHERE a.id = x.attempt_id
), sent AS (
    UPDATE {Notification._meta.db_table} n
       SET status = 'sent', status_changed_at = %(now)s, sent_at = %(now)s,
           provider_message_id = x.message_id, lease_owner = '', lease_expires_at = NULL,
           error_class = '', last_error = '', last_error_detail = '', evidence_deadline = NULL
      FROM accepted x
     WHERE n.id = x.notification_id AND n.status <> 'sent'
    RETURNING n.kind, n.created_at
), inbox AS (
    INSERT INTO {ProcessedEvent._meta.db_table} (event_id, handler, result, processed_at)
    SELECT event_id, inbox_key, 'sent', %(now)s FROM accepted
    ON CONFLICT DO NOTHING
)
SELECT kind, created_at FROM sent
"""


@dataclass(frozen=True)
class Accepted:
    attempt_id: int
    notification_id: int
    event_id: uuid.UUID
    inbox_key: str
    message_id: str
    http_status: int | None
    duration_ms: int


@dataclass(frozen=True)
class MarkedSent:
    kind: str
    created_at: datetime


def accepted_record(accepted: list[Accepted], *, now: datetime) -> list[MarkedSent]:
    """The provider accepted these emails (one notification at most once): finish each attempt,
    mark its notification sent (whoever holds the lease now: acceptance is a fact) and write
    its inbox row, atomically in one statement. Returns the notifications it marked sent, not
    those another delivery had marked first."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _ACCEPTED,
            {
                "attempt_ids": [a.attempt_id for a in accepted],
                "notification_ids": [a.notification_id for a in accepted],
                "event_ids": [a.event_id for a in accepted],
                "inbox_keys": [a.inbox_key for a in accepted],
                "message_ids": [a.message_id for a in accepted],
                "http_statuses": [a.http_status for a in accepted],
                "durations": [a.duration_ms for a in accepted],
                "now": now,
            },
        )
        rows = cursor.fetchall()
    return [MarkedSent(kind=kind, created_at=created_at) for kind, created_at in rows]


def _claim_read_of(row: tuple[Any, ...]) -> ClaimRead:
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
