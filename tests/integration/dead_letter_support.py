"""Dead letters made directly, without a worker: an order's real task message, dead-lettered
by the product's own `dead_letter_publish` (the reason and class in its headers, confirmed),
exactly as a worker leaves it in `orders.confirmations.dlq`."""

import json

from config.celery import app
from messaging.dead_lettering import dead_letter_publish
from messaging.models import OutboxEvent
from messaging.task_names import HANDLE_EVENT
from orders.events import ORDER_CREATED
from orders.models import Order
from tests.broker import queue_ready_count
from tests.waiting import wait_until

DLQ = "orders.confirmations.dlq"
WORK_QUEUE = "orders.confirmations"
REFUSED = "The mail provider refused the email (HTTP 422): mailbox unavailable"


def dlq_settles_at(count: int) -> None:
    """The DLQ holds `count` messages once RabbitMQ has put back what a closed reader held:
    a quorum queue does that a moment after the close, not before it answers."""
    wait_until(lambda: queue_ready_count(DLQ) == count, timeout=10, message=f"{count} in the DLQ")


def dead_letter_of(order: Order, *, reason: str = REFUSED, error_class: str = "permanent") -> str:
    """Put the `order.created` message of `order` in its DLQ; its event id."""
    event = OutboxEvent.objects.get(aggregate_id=str(order.id), event_type=ORDER_CREATED)
    headers, _, body, _ = app.amqp.create_task_message(str(event.id), HANDLE_EVENT, [event.payload], {})
    confirmed = dead_letter_publish(
        body=json.dumps(body).encode(),
        content_type="application/json",
        content_encoding="utf-8",
        headers=headers,
        properties={"message_id": str(event.id)},
        delivery_info={"exchange": "orders.events", "routing_key": ORDER_CREATED},
        reason=reason,
        error_class=error_class,
        worker="test",
    )
    assert confirmed, "the broker did not confirm the dead letter"
    return str(event.id)
