"""Looking into the test vhost's queues from a test."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote, urlsplit

import requests
from django.conf import settings
from kombu import Connection, Producer

from config.settings.test import TEST_RABBITMQ_VHOST
from messaging.broker.channel import amqp_channel, queue_counts
from messaging.broker.declare import topology_declare
from messaging.broker.topology import MAINTENANCE_QUEUE, dead_letter_queues, work_queues


def queue_ready_count(name: str) -> int:
    with Connection(settings.CELERY_BROKER_URL) as connection:
        ready, _ = queue_counts(amqp_channel(connection), name)
        return ready


def queues_purge() -> None:
    """Empty our queues, and Celery's delay queues: a retry of the previous test may wait
    there and would arrive in the next test otherwise."""
    delay_queues = [f"celery_delayed_{level}" for level in range(28)]
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        for name in [
            q.name for q in (*work_queues(), *dead_letter_queues(), MAINTENANCE_QUEUE)
        ] + delay_queues:
            channel.queue_purge(name)


def queue_peek(name: str, limit: int = 100) -> list[dict]:
    """Read messages without consuming them: get each, then requeue them all at the end."""
    messages = []
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        for _ in range(limit):
            message = channel.basic_get(queue=name, no_ack=False)
            if message is None:
                break
            messages.append(
                {
                    "headers": dict(message.properties.get("application_headers") or {}),
                    "properties": {k: v for k, v in message.properties.items() if k != "application_headers"},
                    "body": _decoded(message),
                    "redelivered": message.delivery_info.get("redelivered"),
                }
            )
        channel.close()  # unacked messages go back to the queue
    return messages


def _decoded(message):
    if message.properties.get("content_type") != "application/json":
        return message.body  # raw bytes: a dead-lettered pickle is never unpickled
    try:
        return json.loads(message.body)
    except ValueError:
        return message.body


def queue_properties(name: str) -> dict:
    """What RabbitMQ's management API says of one queue of the test vhost (arguments, ...)."""
    parts = urlsplit(settings.RABBITMQ_MANAGEMENT_URL)
    vhost = quote(TEST_RABBITMQ_VHOST, safe="")
    response = requests.get(
        f"{parts.scheme}://{parts.hostname}:{parts.port or 15672}/api/queues/{vhost}/{quote(name, safe='')}",
        auth=(parts.username or "guest", parts.password or "guest"),
        timeout=10,
    )
    response.raise_for_status()
    return response.json()


@contextmanager
def broker_policy(name: str, *, pattern: str, definition: dict, priority: int = 100) -> Iterator[None]:
    """A RabbitMQ policy on the test vhost's queues whose names match `pattern`, for the
    duration of the block (a queue at its length limit, say)."""
    parts = urlsplit(settings.RABBITMQ_MANAGEMENT_URL)
    url = (
        f"{parts.scheme}://{parts.hostname}:{parts.port or 15672}/api/policies/"
        f"{quote(TEST_RABBITMQ_VHOST, safe='')}/{quote(name, safe='')}"
    )
    auth = (parts.username or "guest", parts.password or "guest")
    body = {"pattern": pattern, "definition": definition, "priority": priority, "apply-to": "queues"}
    requests.put(url, json=body, auth=auth, timeout=10).raise_for_status()
    try:
        yield
    finally:
        requests.delete(url, auth=auth, timeout=10).raise_for_status()


def delay_queues_renew() -> None:
    """Delete Celery's delay queues and declare them anew, with their bindings, as
    `declare_topology` does. RabbitMQ 3.10 keeps a quorum queue that reached a length limit
    refusing messages after the policy that set the limit is deleted (rabbitmq-server#12206),
    and a delayed retry would then never come out of the delay queues."""
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        for level in range(28):
            channel.queue_delete(f"celery_delayed_{level}")
    topology_declare(broker_url=settings.CELERY_BROKER_URL)


@contextmanager
def delay_queues_full() -> Iterator[None]:
    """Celery's delay queues at a length limit of 0, each holding one message (a quorum queue
    refuses a publish only once it is over its limit), so the broker refuses every delayed
    retry; new delay queues afterwards (`delay_queues_renew`)."""
    full = {"max-length": 0, "overflow": "reject-publish"}
    try:
        with broker_policy("tests-delay-queues-full", pattern="^celery_delayed_", definition=full):
            with Connection(settings.CELERY_BROKER_URL) as connection:
                producer = connection.Producer()
                for level in range(28):
                    queue = f"celery_delayed_{level}"
                    producer.publish(b"full", routing_key=queue, delivery_mode=2, confirm_timeout=10)
            yield
    finally:
        delay_queues_renew()


def order_created_publish(
    body: bytes, *, headers: dict, content_type: str = "application/json", message_id: str | None = None
) -> None:
    """A message published as the relay publishes an order's event (its exchange and routing
    key), confirmed: the tests' way to put a message of their own making into a work queue."""
    properties: dict[str, Any] = {"message_id": message_id} if message_id else {}
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        channel.confirm_select()
        Producer(channel).publish(
            body,
            exchange="orders.events",
            routing_key="order.created",
            content_type=content_type,
            content_encoding="utf-8" if "json" in content_type else "binary",
            headers=headers,
            delivery_mode=2,
            mandatory=True,
            **properties,
        )
