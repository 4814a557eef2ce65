"""The broker topology, declared from this one place (settings, workers and the
`declare_topology` command all read it). The work queues are the ones the registered event
types name (messaging/registry.py); each has its dead-letter queue.

Why quorum queues (docs/celery-and-rabbitmq.md, "Quorum queues"; measured on RabbitMQ 3.10.8):
- `x-delivery-limit` stops a poison message (or a task that kills its worker) from looping;
  classic queues reject that argument on 3.10.
- `x-dead-letter-strategy: at-least-once` keeps a dead letter even when the DLX is briefly
  missing; classic queues only dead-letter at-most-once and lost the message in the test.
- They are replicated on a cluster.
The price: consuming at prefetch 1 is slower, countdowns must be whole seconds (under 1 s
raises), and delayed retries need topic exchanges (Celery's native delayed delivery).

Retries go through `orders.retry`, where each work queue is bound by its own name, so a
delayed retry comes back to the queue it came from and to no other.
"""

from collections.abc import Sequence

from kombu import Exchange, Queue, binding

from messaging.registry import event_types_for_queue, work_queue_names

EVENTS_EXCHANGE = Exchange("orders.events", type="topic", durable=True)
RETRY_EXCHANGE = Exchange("orders.retry", type="topic", durable=True)
DEAD_LETTER_EXCHANGE = Exchange("orders.events.dlx", type="direct", durable=True)
MAINTENANCE_EXCHANGE = Exchange("orders.maintenance", type="topic", durable=True)

# Deliveries before a message is dead-lettered. Connection drops count too, so this
# leaves room for worker restarts while still stopping a poison loop. Changing a queue
# argument needs a new queue name: RabbitMQ refuses a redeclare with other arguments.
DELIVERY_LIMIT = 10


def dead_letter_queue_name(work_queue: str) -> str:
    return f"{work_queue}.dlq"


def work_queue(name: str) -> Queue:
    # The primary binding is the retry route; the event bindings are in event_bindings().
    queue = Queue(
        name,
        exchange=RETRY_EXCHANGE,
        routing_key=name,
        durable=True,
        queue_arguments={
            "x-queue-type": "quorum",
            "x-dead-letter-exchange": DEAD_LETTER_EXCHANGE.name,
            "x-dead-letter-routing-key": name,
            "x-dead-letter-strategy": "at-least-once",
            "x-overflow": "reject-publish",  # required by at-least-once dead-lettering
            "x-delivery-limit": DELIVERY_LIMIT,
        },
    )
    return queue


def event_bindings(queue: Queue, catalogues: Sequence[str] | None = None) -> list[binding]:
    """The event types a work queue takes from orders.events.

    Kept apart from the Queue object on purpose: a kombu Queue with extra bindings loses
    its primary exchange, and Celery routes delayed retries through the primary exchange
    (orders.retry) only. `declare_topology` declares these bindings; a worker does not.
    """
    return [
        binding(EVENTS_EXCHANGE, routing_key=event) for event in event_types_for_queue(queue.name, catalogues)
    ]


def dead_letter_queue(work_queue_name: str) -> Queue:
    # No TTL and no length limit: nothing may leave the DLQ except by a person's decision.
    return Queue(
        dead_letter_queue_name(work_queue_name),
        exchange=DEAD_LETTER_EXCHANGE,
        routing_key=work_queue_name,
        durable=True,
        queue_arguments={"x-queue-type": "quorum"},
    )


# Periodic jobs (the outbox sweep, retention, reconcile). A lost sweep is replaced by the next
# one, so no dead-lettering. A quorum queue all the same: a classic queue lives on one node,
# and in a cluster the loss of that node stopped every sweep until it came back (the events a
# broker had refused meanwhile waited for it). Until 2026-12 it was classic; declare_topology
# replaces such a queue (messaging/broker/declare.py).
MAINTENANCE_QUEUE = Queue(
    "orders.maintenance",
    exchange=MAINTENANCE_EXCHANGE,
    routing_key="orders.maintenance",
    durable=True,
    queue_arguments={"x-queue-type": "quorum"},
)


def work_queues(catalogues: Sequence[str] | None = None) -> list[Queue]:
    return [work_queue(name) for name in work_queue_names(catalogues)]


def dead_letter_queues(catalogues: Sequence[str] | None = None) -> list[Queue]:
    return [dead_letter_queue(queue.name) for queue in work_queues(catalogues)]


def celery_task_queues(catalogues: Sequence[str]) -> list[Queue]:
    """What Celery consumes (settings' CELERY_TASK_QUEUES)."""
    return [*work_queues(catalogues), MAINTENANCE_QUEUE]
