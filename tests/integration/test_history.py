"""History does not slow the hot path down: with a large history of published events and
inbox rows, the relay's claim and the inbox check use their indexes; and the retention job
keeps both tables bounded in small batches. (200,000 rows each here; the plans are the same
with millions, the test checks the plans, not the time.)"""

import os
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from messaging.models import OutboxEvent, ProcessedEvent
from messaging.retention import retention_run

pytestmark = pytest.mark.django_db(transaction=True)
# HISTORY_ROWS=1000000 checks the same plans at the size the issue names (about 3 minutes).
HISTORY = int(os.environ.get("HISTORY_ROWS", "200000"))


@pytest.fixture
def history():
    """Published events and inbox rows, 60 days old up to now, and a few unpublished ones."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO messaging_outboxevent
                (id, event_type, aggregate_type, aggregate_id, schema_version, payload, created_at,
                 published_at, claimed_by, publish_attempts, last_publish_error)
            SELECT gen_random_uuid(), 'order.created', 'order', gen_random_uuid()::text, 1, '{}'::jsonb,
                   at, at, '', 1, ''
              FROM generate_series(1, %s) AS n,
                   LATERAL (SELECT now() - (%s - n) * interval '26 seconds' AS at) AS t
            """,
            [HISTORY, HISTORY],
        )
        cursor.execute(
            """
            INSERT INTO messaging_processedevent (event_id, handler, result, processed_at)
            SELECT gen_random_uuid(), 'order_confirmation_email', 'sent',
                   now() - (%s - n) * interval '26 seconds'
              FROM generate_series(1, %s) AS n
            """,
            [HISTORY, HISTORY],
        )
        cursor.execute(
            """
            INSERT INTO messaging_outboxevent
                (id, event_type, aggregate_type, aggregate_id, schema_version, payload, created_at,
                 claimed_by, publish_attempts, last_publish_error)
            SELECT gen_random_uuid(), 'order.created', 'order', gen_random_uuid()::text, 1, '{}'::jsonb,
                   now(), '', 0, '' FROM generate_series(1, 50)
            """
        )
        cursor.execute("ANALYZE messaging_outboxevent")
        cursor.execute("ANALYZE messaging_processedevent")


def _plan(sql: str, params=()) -> str:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_the_relays_claim_reads_only_the_unpublished_rows_through_their_partial_index(history):
    plan = _plan(
        "SELECT id FROM messaging_outboxevent WHERE published_at IS NULL "
        "AND (next_attempt_at IS NULL OR next_attempt_at <= now()) "
        "ORDER BY created_at LIMIT 200 FOR UPDATE SKIP LOCKED"
    )
    assert "outbox_unpublished_idx" in plan, plan
    assert "Seq Scan" not in plan, plan


def test_the_inbox_check_is_an_index_lookup(history):
    event_id = ProcessedEvent.objects.values_list("event_id", flat=True).first()
    plan = _plan(
        "SELECT 1 FROM messaging_processedevent WHERE event_id = %s AND handler = %s LIMIT 1",
        [event_id, "order_confirmation_email"],
    )
    assert "inbox_unique_event_handler" in plan, plan
    assert "Seq Scan" not in plan, plan


def test_retention_removes_old_history_in_small_batches_and_keeps_what_is_recent_or_unpublished(history):
    outbox_cutoff = timezone.now() - timedelta(days=7)
    old_outbox = OutboxEvent.objects.filter(created_at__lt=outbox_cutoff).count()
    old_inbox = ProcessedEvent.objects.filter(processed_at__lt=timezone.now() - timedelta(days=30)).count()
    assert old_outbox > 100_000
    # in the steady state (an hourly run finds an hour's worth of old rows), the retention
    # delete finds them through the BRIN index instead of scanning the table
    an_hour_of_old_rows = OutboxEvent.objects.order_by("created_at").values_list("created_at", flat=True)[140]
    plan = _plan(
        "SELECT id FROM messaging_outboxevent WHERE created_at < %s AND published_at IS NOT NULL LIMIT 5000",
        [an_hour_of_old_rows],
    )
    assert "outbox_created_brin" in plan, plan
    # when
    with override_settings(OUTBOX_RETENTION_DAYS=7, INBOX_RETENTION_DAYS=30):
        report = retention_run(batch_size=5000)
    # then
    assert report.outbox_deleted == old_outbox
    assert report.inbox_deleted == old_inbox
    assert OutboxEvent.objects.filter(created_at__lt=outbox_cutoff).count() == 0
    assert OutboxEvent.objects.filter(published_at__isnull=True).count() == 50  # open promises stay
    assert OutboxEvent.objects.count() == HISTORY + 50 - old_outbox
