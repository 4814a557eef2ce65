"""Steps of the hourly retention job (RETENTION_STEPS) that keep a customer's personal data
no longer than its purpose needs, whoever the customer (docs/personal-data.md says why each
period):

- an email's snapshot (what it said, to whom) once it is finished for EMAIL_SNAPSHOT_RETENTION_DAYS:
  the provider's key window (a day) and the customer's questions about it are long over; its
  kind, status, times and key stay. Its content hash goes too, so that a reviewer's "send
  again" after that renders it afresh rather than send an empty body;
- an attempt's recipient and the provider's answer after ATTEMPT_DETAIL_RETENTION_DAYS.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q

from infra.batched_update import update_in_batches
from notifications.models import DeliveryAttempt, Notification


def email_snapshots_clear(*, now: datetime, batch_size: int, max_batches: int) -> int:
    cutoff = now - timedelta(days=settings.EMAIL_SNAPSHOT_RETENTION_DAYS)
    finished = Notification.objects.filter(
        status__in=Notification.FINAL_STATUSES, status_changed_at__lt=cutoff
    ).filter(~Q(email_content_hash="") | ~Q(email_html="") | ~Q(email_text="") | ~Q(last_error_detail=""))
    return update_in_batches(
        finished,
        batch_size=min(batch_size, settings.PERSONAL_DATA_RETENTION_BATCH_SIZE),
        max_batches=max_batches,
        pace=settings.PERSONAL_DATA_RETENTION_PACE,
        email_subject="",
        email_text="",
        email_html="",
        email_content_hash="",
        last_error_detail="",
        delivery_detail="",
    )


def attempt_details_clear(*, now: datetime, batch_size: int, max_batches: int) -> int:
    cutoff = now - timedelta(days=settings.ATTEMPT_DETAIL_RETENTION_DAYS)
    # An attempt whose call never returned (no finish) counts from its start.
    old = Q(finished_at__lt=cutoff) | Q(finished_at__isnull=True, started_at__lt=cutoff)
    finished = DeliveryAttempt.objects.filter(old).exclude(recipient="", error="")
    return update_in_batches(
        finished,
        batch_size=min(batch_size, settings.PERSONAL_DATA_RETENTION_BATCH_SIZE),
        max_batches=max_batches,
        pace=settings.PERSONAL_DATA_RETENTION_PACE,
        recipient="",
        error="",
    )
