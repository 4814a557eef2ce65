"""Declaring and checking the topology on the broker."""

from django.conf import settings
from kombu import Connection
from kombu.transport.native_delayed_delivery import (
    bind_queue_to_native_delayed_delivery_exchange,
    declare_native_delayed_delivery_exchanges_and_queues,
    level_name,
)

from infra.health import Unready
from messaging.broker.channel import amqp_channel
from messaging.broker.topology import (
    DEAD_LETTER_EXCHANGE,
    EVENTS_EXCHANGE,
    MAINTENANCE_EXCHANGE,
    MAINTENANCE_QUEUE,
    RETRY_EXCHANGE,
    dead_letter_queues,
    event_bindings,
    work_queues,
)


def topology_declare(*, broker_url: str) -> list[str]:
    """Declare everything, idempotently; returns what was declared, for the operator.

    Celery's delayed-delivery queues are declared and bound here too: a delayed retry whose
    queue no worker has bound yet would otherwise wait in them (celery #9960).
    """
    declared: list[str] = []
    with Connection(broker_url, connect_timeout=5) as connection:
        channel = connection.channel()
        for exchange in (EVENTS_EXCHANGE, RETRY_EXCHANGE, DEAD_LETTER_EXCHANGE, MAINTENANCE_EXCHANGE):
            exchange.bind(channel).declare()
            declared.append(f"exchange {exchange.name} ({exchange.type})")
        for queue in [*work_queues(), *dead_letter_queues()]:
            queue.bind(channel).declare()
            declared.append(f"queue {queue.name} ({(queue.queue_arguments or {}).get('x-queue-type')})")
        declared.append(_maintenance_queue_declare(connection))
        for queue in work_queues():
            for event_binding in event_bindings(queue):
                event_binding.bind(queue.bind(channel), channel=channel)
                assert event_binding.exchange is not None  # event_bindings() names orders.events
                declared.append(
                    f"binding {event_binding.exchange.name} -[{event_binding.routing_key}]-> {queue.name}"
                )
        declare_native_delayed_delivery_exchanges_and_queues(connection, "quorum")
        for queue in [*work_queues(), MAINTENANCE_QUEUE]:
            bind_queue_to_native_delayed_delivery_exchange(connection, queue)
        declared.append("Celery delayed-delivery queues celery_delayed_0..27 and their bindings")
    return declared


def _maintenance_queue_declare(connection: Connection) -> str:
    """Declare the periodic jobs' queue. One an earlier version declared classic is replaced:
    RabbitMQ refuses to change a queue's type on a redeclare (406), so it is deleted and
    declared again as a quorum queue. What it held were triggers of periodic jobs (a sweep, a
    retention pass), each replaced by the next on beat's schedule, so none is kept."""
    name = MAINTENANCE_QUEUE.name
    try:
        MAINTENANCE_QUEUE.bind(amqp_channel(connection)).declare()
        return f"queue {name} (quorum)"
    except connection.channel_errors as exc:  # the 406 closed that channel only
        if "x-queue-type" not in str(exc):
            raise
    channel = amqp_channel(connection)
    channel.queue_delete(name)
    MAINTENANCE_QUEUE.bind(channel).declare()
    return (
        f"queue {name} (quorum; replaced the classic queue of an earlier version, its waiting jobs dropped)"
    )


def topology_missing(*, broker_url: str, connect_timeout: float = 3.0) -> list[str]:
    """Names of queues that do not exist on the broker (a passive declare of each). Celery's
    delayed-delivery queues count by their last one declared: only `topology_declare` declares
    them (the workers start without Celery's step that would, messaging/worker/consumer.py)."""
    missing: list[str] = []
    names = [queue.name for queue in [*work_queues(), *dead_letter_queues(), MAINTENANCE_QUEUE]]
    with Connection(broker_url, connect_timeout=connect_timeout) as connection:
        for name in [*names, level_name(0)]:
            channel = amqp_channel(connection)
            try:
                channel.queue_declare(queue=name, passive=True)
            except connection.channel_errors:
                missing.append(name)
            finally:
                try:
                    channel.close()
                except connection.connection_errors + connection.channel_errors:
                    pass
    return missing


def topology_problems() -> list[Unready]:
    """For /readyz (settings READINESS_CHECKS): the broker answers and every queue exists."""
    try:
        missing = topology_missing(broker_url=settings.CELERY_BROKER_URL)
    except Exception as exc:
        return [Unready("broker", f"{type(exc).__name__}: {exc}")]
    return [Unready("broker", "queues not declared: " + ", ".join(missing))] if missing else []
