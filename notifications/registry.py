"""Event types: what each one means, which queue consumes it and what guarantee it gets.

The relay (routing), the topology (queues and bindings), the order services (which events
to write) and the handlers (which path to run) all read this one registry.
"""

from dataclasses import dataclass
from enum import StrEnum


class Guarantee(StrEnum):
    # Outbox + inbox + the provider's idempotency key: the effect happens once.
    EFFECT_ONCE = "effect-once"
    # Outbox, no inbox: never lost, but a redelivered event runs its handler again.
    AT_LEAST_ONCE = "at-least-once"


CONFIRMATIONS_QUEUE = "orders.confirmations"
CANCELLATIONS_QUEUE = "orders.cancellations"
ANALYTICS_QUEUE = "orders.analytics"


@dataclass(frozen=True)
class EventType:
    name: str  # also the routing key on the orders.events exchange
    queue: str  # exactly one work queue per event type, so a retry never fans out
    handler: str  # the inbox key, (event_id, handler), for effect-once types
    guarantee: Guarantee
    schema_versions: frozenset[int]
    why: str  # the reason for the guarantee, for the next person who adds a type
    notification_kind: str = ""  # the Notification.Kind an email event produces


ORDER_CREATED = EventType(
    name="order.created",
    queue=CONFIRMATIONS_QUEUE,
    handler="order_confirmation_email",
    notification_kind="order_confirmation",
    guarantee=Guarantee.EFFECT_ONCE,
    schema_versions=frozenset({1}),
    why="A customer email: never lost, and a second confirmation would confuse and annoy.",
)

ORDER_CANCELLED = EventType(
    name="order.cancelled",
    queue=CANCELLATIONS_QUEUE,
    handler="order_cancellation_email",
    notification_kind="order_cancellation",
    guarantee=Guarantee.EFFECT_ONCE,
    schema_versions=frozenset({1}),
    why="A customer email: never lost, never twice.",
)

ORDER_PAID = EventType(
    name="order.paid",
    queue=ANALYTICS_QUEUE,
    handler="daily_sales_count",
    guarantee=Guarantee.AT_LEAST_ONCE,
    schema_versions=frozenset({1}),
    why=(
        "A dashboard counter of paid orders per day. A redelivery may count an order twice; "
        "the figure is for watching trends, the orders table stays the record, and an inbox "
        "row per event would double the counter's write cost for nothing a person would notice."
    ),
)

EVENT_TYPES: dict[str, EventType] = {
    event.name: event for event in (ORDER_CREATED, ORDER_CANCELLED, ORDER_PAID)
}


def work_queue_names() -> list[str]:
    return sorted({event.queue for event in EVENT_TYPES.values()})


def event_types_for_queue(queue: str) -> list[str]:
    return sorted(event.name for event in EVENT_TYPES.values() if event.queue == queue)
