"""Storing a provider event: once per provider event id, with the outbox event that has a
worker apply it, in one transaction. The webhook answers as soon as this commits."""

import uuid

from django.db import transaction

from messaging.outbox import event_record
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import ProviderEvent
from notifications.tracking.normalised import TrackingEvent


@transaction.atomic
def provider_event_store(event: TrackingEvent) -> bool:
    """True if the event is new; False if it was stored before (then nothing is written)."""
    row = ProviderEvent(
        id=uuid.uuid4(),
        provider=event.provider,
        provider_event_id=event.provider_event_id,
        kind=event.kind,
        occurred_at=event.occurred_at,
        provider_message_id=event.provider_message_id[:255],
        idempotency_key=event.idempotency_key[:64],
        recipient=event.recipient[:254],
        hard_bounce=event.hard_bounce,
        description=event.description,
        payload=event.payload,
    )
    # ON CONFLICT DO NOTHING on (provider, provider_event_id): a concurrent copy of the same
    # event waits for ours to commit, then inserts nothing.
    ProviderEvent.objects.bulk_create([row], ignore_conflicts=True)
    if not ProviderEvent.objects.filter(pk=row.id).exists():
        return False
    event_record(event_type=PROVIDER_EVENT_RECEIVED, aggregate_id=row.id)
    return True
