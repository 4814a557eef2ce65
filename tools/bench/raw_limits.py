"""The raw limits the bench compares the pipelines against: what the broker confirms to a
minimal client, and what PostgreSQL commits of the order and outbox transaction, written with
plain py-amqp and psycopg (no Django, none of our code)."""

import time
import uuid

import psycopg
from amqp import Connection as AmqpConnection
from amqp import Message


def raw_publish_with_pipelined_confirms(broker_host: str, vhost: str, messages: int = 20_000) -> float:
    """A minimal client (py-amqp): persistent messages to a durable quorum queue, all written,
    then every confirm collected. The broker's own ceiling for what our relay does."""
    with AmqpConnection(host=broker_host, userid="guest", password="guest", virtual_host=vhost) as conn:
        channel = conn.channel()
        channel.queue_declare(
            "bench.raw", durable=True, auto_delete=False, arguments={"x-queue-type": "quorum"}
        )
        channel.confirm_select()
        acked = 0

        def on_ack(tag: int, multiple: bool) -> None:
            nonlocal acked
            acked = tag if multiple else acked + 1

        # py-amqp sets `events` in Channel.__init__; its stub omits it (messaging/broker/channel.py)
        channel.events["basic_ack"].add(on_ack)  # type: ignore[attr-defined]
        body = b"x" * 200
        started = time.perf_counter()
        for _ in range(messages):
            channel.basic_publish(Message(body, delivery_mode=2), exchange="", routing_key="bench.raw")
        while acked < messages:
            conn.drain_events(timeout=30)
        elapsed = time.perf_counter() - started
        channel.queue_delete("bench.raw")
    return messages / elapsed


def raw_order_and_outbox_transactions(database_url: str, count: int = 3000) -> float:
    """Plain psycopg: one transaction = INSERT order + INSERT outbox row, one connection."""
    with psycopg.connect(database_url) as conn:
        started = time.perf_counter()
        for _ in range(count):
            order_id = uuid.uuid4()
            with conn.transaction():
                conn.execute(
                    "INSERT INTO orders_order (id, customer_email, amount, currency, locale, status, "
                    "version, request_fingerprint, created_at, updated_at) "
                    "VALUES (%s, 'raw@bench.example', 1, 'EUR', 'en', 'created', 1, '', now(), now())",
                    [order_id],
                )
                conn.execute(
                    "INSERT INTO messaging_outboxevent (id, event_type, aggregate_type, aggregate_id, "
                    "schema_version, payload, created_at, published_at, claimed_by, publish_attempts, "
                    "last_publish_error) "
                    "VALUES (%s, 'bench.raw', 'order', %s, 1, '{}', now(), now(), '', 1, '')",
                    [uuid.uuid4(), str(order_id)],
                )
        elapsed = time.perf_counter() - started
        conn.execute("DELETE FROM messaging_outboxevent WHERE event_type = 'bench.raw'")
        conn.execute("DELETE FROM orders_order WHERE customer_email = 'raw@bench.example'")
    return count / elapsed
