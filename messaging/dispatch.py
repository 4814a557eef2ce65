"""Handling one delivery of an event: understand the envelope, skip what the inbox says is
done, and run the handler its event type names (messaging/registry.py). The event task
acks only after this returns."""

import logging
from dataclasses import dataclass

from messaging.envelope import EnvelopeError, envelope_parse
from messaging.errors import PermanentError
from messaging.inbox import inbox_contains
from messaging.registry import Guarantee
from observability.logs import log_context

logger = logging.getLogger(__name__)

DUPLICATE = "duplicate"  # the result of a delivery the inbox says is done


@dataclass(frozen=True)
class Delivery:
    """What the task knows about this delivery of the message."""

    worker: str
    retries: int
    max_retries: int

    @property
    def final_attempt(self) -> bool:
        return self.retries >= self.max_retries


def event_dispatch(*, raw_envelope: object, delivery: Delivery) -> str:
    try:
        envelope = envelope_parse(raw_envelope)
    except EnvelopeError as exc:
        raise PermanentError(str(exc), detail=repr(raw_envelope)[:500]) from exc
    event_type = envelope.event_type
    # Every line logged while the event is handled carries its ids (e.g. event_id, order_id).
    with log_context(event_id=envelope.event_id, **{event_type.aggregate_id_field: envelope.aggregate_id}):
        if (
            event_type.guarantee == Guarantee.EFFECT_ONCE
            and not event_type.inbox_checked_by_handler
            and inbox_contains(event_id=envelope.event_id, inbox_key=event_type.inbox_key)
        ):
            logger.info(
                "event %s already processed by %s: duplicate ignored", envelope.event_id, event_type.inbox_key
            )
            return DUPLICATE
        return event_type.handler_function()(envelope=envelope, delivery=delivery)
