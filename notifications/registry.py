"""Event types: what each one means, which queue consumes it and what guarantee it gets.

The relay, the topology and the handlers all read this one registry, so adding an event
type is one entry here plus its handler.
"""

from dataclasses import dataclass
from enum import StrEnum


class Guarantee(StrEnum):
    # Outbox + inbox + the provider's idempotency key: the effect happens once.
    EFFECT_ONCE = "effect-once"
    # Outbox but no inbox: the handler may run twice and must be harmless when it does.
    AT_LEAST_ONCE = "at-least-once"


CONFIRMATIONS_QUEUE = "orders.confirmations"


@dataclass(frozen=True)
class EventType:
    name: str  # also the routing key on the orders.events exchange
    queue: str  # exactly one work queue per event type, so a retry never fans out
    handler: str  # the inbox key: (event_id, handler) is processed once
    notification_kind: str  # the Notification.Kind this event produces
    guarantee: Guarantee
    schema_versions: frozenset[int]


ORDER_CREATED = EventType(
    name="order.created",
    queue=CONFIRMATIONS_QUEUE,
    handler="order_confirmation_email",
    notification_kind="order_confirmation",
    guarantee=Guarantee.EFFECT_ONCE,  # a customer must never get two confirmations
    schema_versions=frozenset({1}),
)

EVENT_TYPES: dict[str, EventType] = {event.name: event for event in (ORDER_CREATED,)}


def work_queue_names() -> list[str]:
    return sorted({event.queue for event in EVENT_TYPES.values()})


def event_types_for_queue(queue: str) -> list[str]:
    return sorted(event.name for event in EVENT_TYPES.values() if event.queue == queue)
