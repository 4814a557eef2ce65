"""Reading the dead-letter queues: each message with what a person needs to decide.

Messages are taken with `basic_get` and not acked; closing the reader puts back every one
that was not explicitly acked. A crash of the reading process does the same.

`stream` hands them out one at a time, so a reader's memory does not grow with the queue,
and takes from each queue at most as many as it held when the stream started: a message
left un-acked is not handed out twice (the broker holds it for us), and one dead-lettered
again while we go (a replay that fails anew) waits for the next run instead of looping.
"""

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import amqp
from django.conf import settings
from kombu import Connection

from messaging import dead_lettering as dl
from messaging.broker.channel import amqp_channel, queue_counts
from messaging.broker.topology import dead_letter_queues
from messaging.registry import event_types

DELIVERY_LIMIT_REASON = (
    "RabbitMQ dead-lettered it after too many deliveries without an outcome "
    "(a task that kills its worker, or a worker restart storm)."
)


@dataclass
class DeadLetter:
    dead_letter_queue: str
    delivery_tag: int
    body: bytes | str  # str when py-amqp decoded it by its content encoding
    content_type: str | None
    content_encoding: str | None
    headers: dict[str, Any]
    properties: dict[str, Any]
    work_queue: str
    reason: str
    error_class: str
    first_at: datetime | None
    last_at: datetime | None
    count: int
    envelope: dict[str, Any] | None = field(default=None)

    @property
    def event_id(self) -> uuid.UUID | None:
        try:
            return uuid.UUID(str(self.headers.get("id") or (self.envelope or {}).get("event_id")))
        except ValueError:
            return None

    @property
    def event_type(self) -> str:
        return str((self.envelope or {}).get("event_type", ""))

    @property
    def aggregate_id(self) -> str:
        """The id of what the event is about (the `order_id` of an order event), or ""."""
        event_type = event_types().get(self.event_type)
        if event_type is None:
            return ""
        return str((self.envelope or {}).get(event_type.aggregate_id_field, ""))


@dataclass
class DeadLetterStream:
    present: dict[str, int]  # messages in each queue when it started: all it will hand out
    letters: Iterator[DeadLetter]

    @property
    def total(self) -> int:
        return sum(self.present.values())

    def __iter__(self) -> Iterator[DeadLetter]:
        return self.letters


class UnreadableDeadLetter(Exception):
    def __init__(self, queue: str):
        super().__init__(
            f"A message in {queue} has headers nested too deep for the AMQP client to decode (RabbitMQ "
            "dead-lettered it at its delivery limit, as the worker could not read it either). Take it "
            "out with RabbitMQ's management UI (the queue's 'Get messages', 'Reject requeue false' "
            "once it is copied somewhere, or a shovel to a queue of its own), then run this again. "
            "Nothing was lost: every other message is still there."
        )
        self.queue = queue


class DeadLetterReader:
    def __init__(self, broker_url: str | None = None):
        self._connection = Connection(broker_url or settings.CELERY_BROKER_URL, connect_timeout=5)
        self._channel = amqp_channel(self._connection)

    def __enter__(self) -> "DeadLetterReader":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def stream(self, *, queues: list[str] | None = None) -> "DeadLetterStream":
        """Every message present now, once, queue by queue; nothing is buffered."""
        present = self.ready_counts(queues)
        return DeadLetterStream(present=present, letters=self._take(present))

    def ready_counts(self, queues: list[str] | None = None) -> dict[str, int]:
        """Messages waiting in each queue, those this reader holds not counted."""
        names = queues or [queue.name for queue in dead_letter_queues()]
        return {name: queue_counts(self._channel, name)[0] for name in names}

    def _take(self, present: dict[str, int]) -> Iterator[DeadLetter]:
        for name, count in present.items():
            for _ in range(count):
                try:
                    message = self._channel.basic_get(queue=name, no_ack=False)
                except RecursionError as exc:  # py-amqp decodes headers recursively
                    raise UnreadableDeadLetter(name) from exc
                if message is None:
                    break  # someone else took the rest
                yield _parse(name, message)

    def fetch(self, *, queues: list[str] | None = None) -> list[DeadLetter]:
        """All of them at once: for small queues and callers that need a list."""
        return list(self.stream(queues=queues))

    def ack(self, letter: DeadLetter) -> None:
        self._channel.basic_ack(letter.delivery_tag)

    def close(self) -> None:
        """Everything not acked goes back to its dead-letter queue (the broker requeues what a
        closed connection held, with or without AMQP's close handshake)."""
        try:
            self._connection.close()
        except Exception:  # a connection left mid-frame (UnreadableDeadLetter): no handshake
            self._connection.collect()


def dead_letter_queue_depths(broker_url: str | None = None) -> dict[str, int]:
    with Connection(broker_url or settings.CELERY_BROKER_URL, connect_timeout=5) as connection:
        channel = amqp_channel(connection)
        return {queue.name: queue_counts(channel, queue.name)[0] for queue in dead_letter_queues()}


def _parse(queue: str, message: amqp.Message) -> DeadLetter:
    assert message.delivery_tag is not None  # every message of basic_get has one
    headers = dict(message.properties.get("application_headers") or {})
    properties = {k: v for k, v in message.properties.items() if k != "application_headers"}
    death = (headers.get("x-death") or [{}])[0]  # set when RabbitMQ itself dead-lettered it
    if dl.REASON_HEADER in headers:
        reason, error_class = str(headers[dl.REASON_HEADER]), str(headers.get(dl.CLASS_HEADER, ""))
        work_queue = str(headers.get(dl.QUEUE_HEADER, ""))
        last_at = _time(headers.get(dl.AT_HEADER))
        first_at, count = (
            _time(headers.get(dl.FIRST_AT_HEADER)) or last_at,
            dl.dead_letter_count_of(headers.get(dl.COUNT_HEADER)) or 1,
        )
    else:
        reason = (
            DELIVERY_LIMIT_REASON
            if death.get("reason") == "delivery_limit"
            else (f"RabbitMQ dead-lettered it ({death.get('reason', 'no reason recorded')}).")
        )
        error_class, work_queue = str(death.get("reason", "unknown")), str(death.get("queue", ""))
        first_at = last_at = _time(death.get("time"))
        count = int(death.get("count") or 1)
    return DeadLetter(
        dead_letter_queue=queue,
        delivery_tag=message.delivery_tag,
        body=message.body,
        content_type=properties.get("content_type"),
        content_encoding=properties.get("content_encoding"),
        headers=headers,
        properties=properties,
        work_queue=work_queue or queue.removesuffix(".dlq"),
        reason=reason,
        error_class=error_class,
        first_at=first_at,
        last_at=last_at,
        count=count,
        envelope=envelope_of(message.body, properties.get("content_type")),
    )


def envelope_of(body: bytes | str, content_type: str | None) -> dict[str, Any] | None:
    """The event envelope of a Celery task message, or None if there is none to read."""
    if content_type != "application/json":
        return None  # never decode anything else (a pickle stays bytes)
    try:
        args = json.loads(body)[0]
    except (ValueError, TypeError, IndexError, KeyError, RecursionError):  # nested past the parser's depth
        return None
    return args[0] if isinstance(args, list) and args and isinstance(args[0], dict) else None


def _time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None
