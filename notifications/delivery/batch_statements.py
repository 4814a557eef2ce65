"""The hot path's statements for a batch of deliveries (notifications/delivery/batch.py): the
claim's locked read and the accepted outcome of statements.py, for every email of the batch
in one round trip each. They must agree with statements.py (the same columns, the same rules)."""

import uuid
from dataclasses import dataclass
from datetime import datetime

from infra.prepared import prepared_cursor
from messaging.models import ProcessedEvent
from notifications.delivery.statements import (
    CIRCUIT_COLUMNS,
    CIRCUIT_JOIN,
    ClaimRead,
    MarkedSent,
    claim_read_of,
    columns_of,
)
from notifications.models import DeliveryAttempt, EmailTemplateVersion, Notification, Suppression
from orders.models import Order

# A batch's reads in one round trip: the same columns and subqueries as _CLAIM_READ, for every
# (order, kind) wanted, the rows locked in order id order (LockRows runs above the sort), so
# batches and single claims lock in one global order and never deadlock.
_CLAIM_READS = f"""
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
       {CIRCUIT_COLUMNS}
  FROM wanted w
  JOIN {Order._meta.db_table} o ON o.id = w.order_id
  JOIN {Notification._meta.db_table} n ON n.order_id = o.id AND n.kind = w.kind
  {CIRCUIT_JOIN}
 ORDER BY o.id, n.id
   FOR NO KEY UPDATE OF o, n
"""


@dataclass(frozen=True)
class ClaimKey:
    order_id: uuid.UUID
    kind: str
    event_id: uuid.UUID
    inbox_key: str


def claim_reads(keys: list[ClaimKey], *, provider: str) -> dict[int, ClaimRead]:
    """claim_read for many at once, by position in `keys`; a position is missing when its
    order or notification does not exist. Each (order, kind) must appear once: a second
    delivery of the same email must read what the first one's claim wrote."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _CLAIM_READS,
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
    return {row[0]: claim_read_of(row[1:]) for row in rows}


_ACCEPTED_MANY = f"""
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
    RETURNING n.id, n.kind, n.created_at
), inbox AS (
    INSERT INTO {ProcessedEvent._meta.db_table} (event_id, handler, result, processed_at)
    SELECT event_id, inbox_key, 'sent', %(now)s FROM accepted
    ON CONFLICT DO NOTHING
)
SELECT id, kind, created_at FROM sent
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


def accepted_record_many(accepted: list[Accepted], *, now: datetime) -> dict[int, MarkedSent]:
    """accepted_record for a batch in one statement (one notification at most once); the
    notifications it marked sent, by id (not those another delivery had marked first)."""
    with prepared_cursor() as cursor:
        cursor.execute(
            _ACCEPTED_MANY,
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
    return {row[0]: MarkedSent(kind=row[1], created_at=row[2]) for row in rows}
