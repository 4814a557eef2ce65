"""Storing a provider event: once per provider event id, with the outbox event that has a
worker apply it, in one transaction. The webhook answers as soon as this commits.

Every text of the event is stored with NUL and lone surrogates replaced by U+FFFD
(infra/storable_text.py): the provider's words are often the remote mail server's, chosen by
whoever runs the recipient's domain, and a character the database refuses would answer 500 to
every retry of a genuine bounce, which would then never suppress the address."""

import uuid

from django.db import transaction

from infra.keyed_hash import address_hash
from infra.storable_text import storable, storable_json
from messaging.outbox import event_record
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import ProviderEvent
from notifications.tracking.normalised import TrackingEvent
from notifications.tracking.sends import email_erased


@transaction.atomic
def provider_event_store(event: TrackingEvent) -> bool:
    """True if the event is new; False if it was stored before (then nothing is written). An
    event about an email whose customer had their data erased is stored as the erasure leaves
    one: without the recipient, the provider's words or what it posted, which all may quote the
    address; the recipient's keyed hash tells whether it is the address the email went to."""
    key, message_id = storable(event.idempotency_key)[:64], storable(event.provider_message_id)[:255]
    recipient = storable(event.recipient)
    erased = email_erased(idempotency_key=key, provider_message_id=message_id)
    row = ProviderEvent(
        id=uuid.uuid4(),
        provider=event.provider,
        provider_event_id=storable(event.provider_event_id)[:255],
        kind=event.kind,
        occurred_at=event.occurred_at,
        provider_message_id=message_id,
        idempotency_key=key,
        recipient="" if erased else recipient[:254],
        recipient_hash=address_hash(recipient) if recipient else "",
        hard_bounce=event.hard_bounce,
        description="" if erased else storable(event.description),
        payload={} if erased else storable_json(event.payload),
    )
    # ON CONFLICT DO NOTHING on (provider, provider_event_id): a concurrent copy of the same
    # event waits for ours to commit, then inserts nothing.
    ProviderEvent.objects.bulk_create([row], ignore_conflicts=True)
    if not ProviderEvent.objects.filter(pk=row.id).exists():
        return False
    event_record(event_type=PROVIDER_EVENT_RECEIVED, aggregate_id=row.id)
    return True
