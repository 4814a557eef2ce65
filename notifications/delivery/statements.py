"""The hot path's writes, one round trip each instead of the ORM's read-then-write
sequences, for one delivery or a batch of them alike (a single delivery is a batch of one):
the claim's write and the accepted outcome (the claim's read is claim_read.py). Anything
unusual takes the ORM path in claims.py and outcomes.py.

Table names come from the models, so a renamed table cannot leave a stale statement behind."""

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection, models
from psycopg.types.json import Jsonb

from infra.prepared import prepared_cursor
from messaging.models import ProcessedEvent
from notifications.delivery.state import status_fields
from notifications.models import DeliveryAttempt, Notification

_NOTIFICATION_COLUMNS = {
    field.attname: field.get_attname_column()[1] for field in Notification._meta.concrete_fields
}
# Passed as JSON (psycopg would send a list as an array: [] became the object {}).
_JSON_COLUMNS = frozenset(
    field.attname for field in Notification._meta.concrete_fields if isinstance(field, models.JSONField)
)


def attempt_start(
    notification: Notification,
    *,
    event_id: uuid.UUID,
    worker: str,
    to: tuple[str, str],
    now: datetime,
    fields: dict[str, Any],
) -> tuple[int, int]:
    """Write the notification's `fields` and the next attempt row, sent `to` (the recipient and
    its keyed hash, which outlives the address's erasure), in one statement; return the
    attempt's (id, number). `attempt_count` is incremented by the statement itself."""
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
                recipient, recipient_hash, provider)
        SELECT %(notification_id)s, %(event_id)s, attempt_count, %(worker)s, %(now)s, '', '', '',
               %(recipient)s, %(recipient_hash)s, %(provider)s
          FROM claimed
        RETURNING id, number
    """
    values: dict[str, Any] = {
        name: Jsonb(value) if name in _JSON_COLUMNS else value for name, value in fields.items()
    }
    with prepared_cursor() as cursor:
        cursor.execute(
            statement,
            {
                **values,
                "notification_id": notification.pk,
                "event_id": event_id,
                "worker": worker,
                "recipient": to[0],
                "recipient_hash": to[1],
                "now": now,
            },
        )
        attempt_id, number = cursor.fetchone()
    return attempt_id, number


@cache
def _accepted_statement() -> str:
    """The accepted outcome's statement. What marking an email sent writes on it is the one
    definition of a status move (state.py `status_fields`, which the ORM's writer uses too),
    with the provider's message id and the time it was sent."""
    assignments = ", ".join(
        f"{connection.ops.quote_name(_NOTIFICATION_COLUMNS[name])} = %(sent_{name})s"
        for name in status_fields(Notification.Status.SENT, datetime.now(UTC))
    )
    return f"""
WITH accepted (attempt_id, notification_id, event_id, inbox_key, message_id, http_status, duration_ms) AS (
    SELECT x.* FROM unnest(%(attempt_ids)s::bigint[], %(notification_ids)s::bigint[], %(event_ids)s::uuid[],
                           %(inbox_keys)s::text[], %(message_ids)s::text[], %(http_statuses)s::int[],
                           %(durations)s::int[]) AS x
     CROSS JOIN {LOCK_WAIT_SET} AS lock_wait
), attempt AS (
    UPDATE {DeliveryAttempt._meta.db_table} a
       SET finished_at = %(now)s, outcome = 'accepted', http_status = x.http_status, error = '',
           provider_message_id = x.message_id, duration_ms = x.duration_ms
      FROM accepted x
     WHERE a.id = x.attempt_id
), sent AS (
    UPDATE {Notification._meta.db_table} n
       SET {assignments}, sent_at = %(now)s, provider_message_id = x.message_id
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


# The delivery's statements wait at most DELIVERY_LOCK_WAIT_SECONDS for a row another session
# holds (a person's open transaction, a stuck session, an inbox row being written): the wait
# ends with LockNotAvailable, the batch is done again one delivery at a time (handler.py), and
# only the held delivery is retried, instead of the soft time limit cutting the whole batch.
# Set for the statement's own transaction (set_config's is_local) by the statement itself: a
# one-row join input of its first part, so it runs before any row is locked.
LOCK_WAIT_SET = "(SELECT set_config('lock_timeout', %(lock_wait)s, true))"


def lock_wait(*, patient: bool = False) -> str:
    """DELIVERY_LOCK_WAIT_SECONDS as PostgreSQL's lock_timeout; "0" (no limit) for the last try
    of recording an outcome alone, which the soft time limit bounds: once the provider accepted
    an email, waiting for a held row beats leaving its outcome unknown (review, for SMTP)."""
    return "0" if patient else f"{int(settings.DELIVERY_LOCK_WAIT_SECONDS * 1000)}ms"


def lock_wait_set(*, patient: bool = False) -> None:
    """The same wait for the rest of the current transaction (the ORM's statements of the
    outcomes that were not accepted: a failure's path, where one statement more costs little)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [lock_wait(patient=patient)])


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


def accepted_record(accepted: list[Accepted], *, now: datetime, patient: bool = False) -> list[MarkedSent]:
    """The provider accepted these emails (one notification at most once): finish each attempt,
    mark its notification sent (whoever holds the lease now: acceptance is a fact) and write
    its inbox row, atomically in one statement. Returns the notifications it marked sent, not
    those another delivery had marked first."""
    sent = status_fields(Notification.Status.SENT, now)
    with prepared_cursor() as cursor:
        cursor.execute(
            _accepted_statement(),
            {
                **{f"sent_{name}": value for name, value in sent.items()},
                "attempt_ids": [a.attempt_id for a in accepted],
                "notification_ids": [a.notification_id for a in accepted],
                "event_ids": [a.event_id for a in accepted],
                "inbox_keys": [a.inbox_key for a in accepted],
                "message_ids": [a.message_id for a in accepted],
                "http_statuses": [a.http_status for a in accepted],
                "durations": [a.duration_ms for a in accepted],
                "now": now,
                "lock_wait": lock_wait(patient=patient),
            },
        )
        rows = cursor.fetchall()
    return [MarkedSent(kind=kind, created_at=created_at) for kind, created_at in rows]
