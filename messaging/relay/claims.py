"""The relay's statements on the outbox rows: claim, mark published, record a failure, release.

Each runs in a short transaction of its own and none waits for the broker: the relay
publishes between them (messaging/relay/relay.py).
"""

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from infra.prepared import prepared_cursor
from messaging.identity import current_process_name
from messaging.models import OutboxEvent


def publish_backoff(attempts: int) -> timedelta:
    """Wait before the next try of a row whose publish failed: 2 s doubling to 5 min."""
    return timedelta(seconds=min(300, 2 ** min(attempts, 9)))


def outbox_claim_batch(*, limit: int) -> list[OutboxEvent]:
    """Claim up to `limit` publishable rows, oldest first, in one short transaction; the
    UPDATE returns what publishing needs, so the rows are not read a second time."""
    lease = timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS)
    table = OutboxEvent._meta.db_table
    with transaction.atomic():
        # raw(): the model's own field conversions apply (the payload comes back a dict).
        events = list(
            OutboxEvent.objects.raw(
                f"""
                UPDATE {table} AS o
                   SET next_attempt_at = now() + %s, claimed_by = %s
                 WHERE o.id IN (
                       SELECT id FROM {table}
                        WHERE published_at IS NULL
                          AND (next_attempt_at IS NULL OR next_attempt_at <= now())
                        ORDER BY created_at
                        LIMIT %s
                        FOR UPDATE SKIP LOCKED)
                RETURNING o.id, o.event_type, o.aggregate_type, o.aggregate_id, o.payload, o.created_at
                """,
                [lease, current_process_name(), limit],
            )
        )
    return sorted(events, key=lambda event: event.created_at)


def outbox_mark_published(event_ids: list[uuid.UUID]) -> None:
    """published_at for events the broker confirmed (and did not return)."""
    if not event_ids:
        return
    # One array parameter, not the ORM's `IN` with a placeholder per id: for a batch of 500,
    # compiling, binding and parsing that list took a third of the mark (33 -> 23 ms).
    # On its own (autocommit) the mark does not wait for its WAL flush: a mark that a database
    # crash loses only means the event is published again, a copy the consumers' inbox
    # absorbs; nothing is lost. Inside a caller's transaction the caller's durability stands.
    durability = "" if connection.in_atomic_block else _WITHOUT_WAITING_FOR_THE_FLUSH
    with prepared_cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE {OutboxEvent._meta.db_table}
               SET published_at = %s, next_attempt_at = NULL,
                   publish_attempts = publish_attempts + 1, last_publish_error = ''
              {durability}
             WHERE id = ANY(%s) AND published_at IS NULL
            """,
            [timezone.now(), list(event_ids)],
        )


# synchronous_commit for this statement's own transaction only (set_config's is_local).
_WITHOUT_WAITING_FOR_THE_FLUSH = "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS durability"


def publish_failures_record(failures: dict[uuid.UUID, str]) -> None:
    """The reason of each failed publish, and the row's back-off before the next try."""
    if not failures:  # the usual case: the ORM's empty `IN` costs 0.5 ms of CPU to find nothing
        return
    now = timezone.now()
    for event in OutboxEvent.objects.filter(id__in=failures, published_at__isnull=True):
        attempts = event.publish_attempts + 1
        OutboxEvent.objects.filter(pk=event.pk, published_at__isnull=True).update(
            publish_attempts=attempts,
            last_publish_error=failures[event.id][:2000],
            next_attempt_at=now + publish_backoff(attempts),
        )


def claims_release(event_ids: list[uuid.UUID], *, error: str | None = None) -> None:
    """Give claimed rows back at once instead of when their lease runs out: the next claim
    takes them. `error` is the reason kept on the row, if there is one to tell."""
    if not event_ids:
        return
    fields: dict[str, object] = {"next_attempt_at": None}
    if error is not None:
        fields["last_publish_error"] = error
    OutboxEvent.objects.filter(id__in=event_ids, published_at__isnull=True).update(**fields)
