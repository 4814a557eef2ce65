"""Retention: keep the outbox and the inbox bounded, without long locks.

Old rows go in small batches, each its own short transaction, so no delete holds locks that
the relay or the workers wait on. Only published outbox events are removed (an unpublished
one is a promise still open), and only inbox rows older than any redelivery can be: a
redelivery older than that still finds the notification's final state and sends nothing.

A feature keeps its own tables bounded with a step of the same job, found by dotted path in
RETENTION_STEPS ({"provider_events": "notifications.tracking.retention.…"}): a function
(*, now, batch_size, max_batches) -> rows deleted. The backbone knows no feature.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.module_loading import import_string

from messaging.models import OutboxEvent, ProcessedEvent, RetentionRun


@dataclass
class RetentionReport:
    outbox_deleted: int = 0
    inbox_deleted: int = 0
    steps_deleted: dict[str, int] = field(default_factory=dict)  # RETENTION_STEPS' names

    def counts(self) -> dict[str, int]:
        """As the task returns it: outbox_deleted, inbox_deleted, <step>_deleted, …"""
        steps = {f"{name}_deleted": deleted for name, deleted in self.steps_deleted.items()}
        return {"outbox_deleted": self.outbox_deleted, "inbox_deleted": self.inbox_deleted, **steps}


def retention_run(*, batch_size: int | None = None, max_batches: int = 1000) -> RetentionReport:
    batch_size = batch_size or settings.RETENTION_BATCH_SIZE
    now = timezone.now()
    report = RetentionReport()
    report.outbox_deleted = _delete_in_batches(
        OutboxEvent._meta.db_table,
        "created_at < %s AND published_at IS NOT NULL",
        now - timedelta(days=settings.OUTBOX_RETENTION_DAYS),
        batch_size,
        max_batches,
    )
    report.inbox_deleted = _delete_in_batches(
        ProcessedEvent._meta.db_table,
        "processed_at < %s",
        now - timedelta(days=settings.INBOX_RETENTION_DAYS),
        batch_size,
        max_batches,
    )
    for name, path in settings.RETENTION_STEPS.items():
        report.steps_deleted[name] = import_string(path)(
            now=now, batch_size=batch_size, max_batches=max_batches
        )
    RetentionRun.objects.create(started_at=now, finished_at=timezone.now(), removed=report.counts())
    return report


def retention_last_run() -> RetentionRun | None:
    """The latest run of the job, for the dashboard."""
    return RetentionRun.objects.first()


def _delete_in_batches(
    table: str, condition: str, cutoff: datetime, batch_size: int, max_batches: int
) -> int:
    deleted = 0
    for _ in range(max_batches):
        with connection.cursor() as cursor:  # autocommit: each batch commits on its own
            cursor.execute(
                f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table} WHERE {condition} LIMIT %s)",
                [cutoff, batch_size],
            )
            deleted += cursor.rowcount
            if cursor.rowcount < batch_size:
                break
    return deleted
