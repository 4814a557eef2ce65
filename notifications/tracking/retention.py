"""Retention of provider events: a step of the hourly retention job (messaging/retention.py
runs each of RETENTION_STEPS), so that the table stays bounded, whoever posts to the webhook.

An event goes once it is older than PROVIDER_EVENT_RETENTION_DAYS and applied: one not yet
applied is still a promise (its outbox event may be on its way to a worker; should it come
after all, apply.py says "no longer stored"). An event stays while it is the evidence of a
decision still standing: an active suppression or an open reconciliation mismatch names it.
A lifted suppression or a resolved mismatch keeps its own words and loses the link (SET_NULL).
Batches are short transactions, as the outbox's, so no delete holds locks for long.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from notifications.models import ProviderEvent, ReconcileMismatch, Suppression


def provider_events_delete_expired(*, now: datetime, batch_size: int, max_batches: int) -> int:
    """How many provider events it deleted."""
    cutoff = now - timedelta(days=settings.PROVIDER_EVENT_RETENTION_DAYS)
    standing_suppression = Suppression.objects.filter(provider_event=OuterRef("pk"), lifted_at__isnull=True)
    open_mismatch = ReconcileMismatch.objects.filter(provider_event=OuterRef("pk"), resolved_at__isnull=True)
    expired = (
        ProviderEvent.objects.filter(received_at__lt=cutoff, applied_at__isnull=False)
        .exclude(Exists(standing_suppression))
        .exclude(Exists(open_mismatch))
    )
    deleted = 0
    for _ in range(max_batches):
        with transaction.atomic():
            batch = list(expired.values_list("pk", flat=True)[:batch_size])
            # Django's delete sets the links of lifted suppressions and resolved mismatches
            # to NULL in the same transaction; only the ids are loaded, not the payloads.
            _, counts = ProviderEvent.objects.filter(pk__in=batch).only("pk").delete()
        deleted += counts.get(ProviderEvent._meta.label, 0)
        if len(batch) < batch_size:
            break
    return deleted
