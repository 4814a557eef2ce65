"""Writing events: the outbox row commits with the change it describes, or not at all.

The backbone's public interface for writers is `event_record`; features call it inside the
transaction that changes their aggregate.
"""

import uuid
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from infra.insert_once import row_insert
from messaging.envelope import Envelope
from messaging.identity import current_process_name
from messaging.models import OutboxEvent
from messaging.registry import EventType, event_type_get
from messaging.relay.after_answer import committed_events_publish


def event_record(*, event_type: str, aggregate_id: uuid.UUID) -> OutboxEvent:
    """Record an event about one aggregate, inside the transaction that changed it.

    The event type must be registered (messaging/registry.py): an event nobody consumes
    would wait in the outbox forever. The row is born claimed by this process, so the beat
    sweep leaves it alone while the on-commit hook publishes it; if this process dies first,
    the claim runs out and the sweep publishes it instead.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("event_record must run inside the transaction of the change it describes")
    registered = event_type_get(event_type)
    event = outbox_event_build(event_type=registered, aggregate_id=aggregate_id)
    event.next_attempt_at = event.created_at + timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS)
    event.claimed_by = current_process_name()
    event = row_insert(event)  # one prepared statement: every order's transaction writes one
    hook = registered.record_hook_function()
    if hook is not None:
        hook(event)
    # The row itself goes to the hook: it was written here and is ours until the claim runs out.
    # In a web request it is published with the request's other events after the answer.
    transaction.on_commit(partial(committed_events_publish, [event]), robust=True)
    return event


def outbox_event_build(*, event_type: EventType, aggregate_id: uuid.UUID) -> OutboxEvent:
    """The outbox row of an event, not yet saved and not claimed by anyone."""
    now = timezone.now()
    envelope = Envelope(
        event_id=uuid.uuid4(),
        event_type=event_type,
        schema_version=event_type.current_schema_version,
        aggregate_id=aggregate_id,
        occurred_at=now,
    )
    return OutboxEvent(
        id=envelope.event_id,
        event_type=event_type.name,
        aggregate_type=event_type.aggregate,
        aggregate_id=str(aggregate_id),
        schema_version=envelope.schema_version,
        payload=envelope.as_message(),
        created_at=now,
    )
