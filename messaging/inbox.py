"""The inbox: which effect-once events a consumer has finished. An effect-once handler
writes its row in the same transaction as its final result (`inbox_record`); the
dispatcher skips an event whose row exists (`inbox_contains`)."""

import uuid

from messaging.models import ProcessedEvent


def inbox_contains(*, event_id: uuid.UUID, inbox_key: str) -> bool:
    return ProcessedEvent.objects.filter(event_id=event_id, handler=inbox_key).exists()


def inbox_record(*, event_id: uuid.UUID, inbox_key: str, result: str) -> None:
    # ON CONFLICT DO NOTHING: a second copy finishing at the same moment is not an error.
    ProcessedEvent.objects.bulk_create(
        [ProcessedEvent(event_id=event_id, handler=inbox_key, result=result)], ignore_conflicts=True
    )
