"""Handling one delivery of an event: understand the envelope, skip what the inbox says is
done, and run the handler its event type names (messaging/registry.py). The event task
acks only after this returns."""

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from messaging.envelope import Envelope, EnvelopeError, envelope_parse
from messaging.errors import PermanentError
from messaging.inbox import inbox_contains
from messaging.registry import Guarantee
from messaging.retry_policy import budget_spent, retry_budget
from observability.logs import log_context

logger = logging.getLogger(__name__)

DUPLICATE = "duplicate"  # the result of a delivery the inbox says is done


@dataclass(frozen=True)
class Delivery:
    """What the task knows about this delivery of the message."""

    worker: str
    retries: int
    max_retries: int  # a safety cap on the count
    retry_since: datetime | None = None  # the first failure of this delivery, if it failed before
    retry_budget: timedelta | None = None  # the event type's (the dispatcher sets it)

    @property
    def final_attempt(self) -> bool:
        """No retry follows a transient failure of this attempt: the type's retry budget is
        spent (time since the first failure), or the safety cap on the count is reached."""
        if self.retries >= self.max_retries:
            return True
        return self.retry_budget is not None and budget_spent(
            retry_since=self.retry_since, budget=self.retry_budget
        )


def event_dispatch(*, raw_envelope: object, delivery: Delivery) -> str:
    try:
        envelope = envelope_parse(raw_envelope)
    except EnvelopeError as exc:
        raise PermanentError(str(exc), detail=repr(raw_envelope)[:500]) from exc
    event_type = envelope.event_type
    delivery = replace(delivery, retry_budget=retry_budget(event_type))
    # Every line logged while the event is handled carries its ids (e.g. event_id, order_id).
    with log_context(event_id=envelope.event_id, **{event_type.aggregate_id_field: envelope.aggregate_id}):
        if _inbox_says_done(envelope):
            logger.info(
                "event %s already processed by %s: duplicate ignored", envelope.event_id, event_type.inbox_key
            )
            return DUPLICATE
        return event_type.handler_function()(envelope=envelope, delivery=delivery)


def events_dispatch_batch(deliveries: Sequence[tuple[object, Delivery]]) -> list[str | BaseException]:
    """Handling many deliveries at once (the event task's batches, messaging/worker/batch_execution.py):
    each delivery's result, in order, as event_dispatch would have returned it, or the
    exception it would have raised. Event types with a batch handler get their deliveries in
    one call; the others, and envelopes that do not parse, are handled one by one."""
    results: dict[int, str | BaseException] = {}
    groups: dict[str, list[tuple[int, Envelope, Delivery]]] = defaultdict(list)
    for index, (raw_envelope, delivery) in enumerate(deliveries):
        try:
            envelope = envelope_parse(raw_envelope)
        except EnvelopeError as exc:
            results[index] = PermanentError(str(exc), detail=repr(raw_envelope)[:500])
            continue
        event_type = envelope.event_type
        if event_type.batch_handler_function() is None or _inbox_says_done(envelope):
            results[index] = _dispatch_one(raw_envelope, delivery)
        else:
            groups[event_type.name].append(
                (index, envelope, replace(delivery, retry_budget=retry_budget(event_type)))
            )
    for members in groups.values():
        handler = members[0][1].event_type.batch_handler_function()
        assert handler is not None  # grouped only if it has one
        try:
            handled = handler([(envelope, delivery) for _, envelope, delivery in members])
        except Exception as exc:  # what each delivery's own call would have raised
            handled = [exc] * len(members)
        for (index, _, _), result in zip(members, handled, strict=True):
            results[index] = result
    return [results[index] for index in range(len(deliveries))]


def _inbox_says_done(envelope: Envelope) -> bool:
    event_type = envelope.event_type
    return (
        event_type.guarantee == Guarantee.EFFECT_ONCE
        and not event_type.inbox_checked_by_handler
        and inbox_contains(event_id=envelope.event_id, inbox_key=event_type.inbox_key)
    )


def _dispatch_one(raw_envelope: object, delivery: Delivery) -> str | BaseException:
    try:
        return event_dispatch(raw_envelope=raw_envelope, delivery=delivery)
    except Exception as exc:
        return exc
