"""Dead-lettering with a reason.

RabbitMQ's own dead-lettering (a reject without requeue) records only *that* a message was
rejected. Our workers instead publish the message, byte for byte, to the dead-letter
exchange with the reason in its headers, wait for the broker's confirm, and only then ack
the original. A crash in between leaves the original to be redelivered: at worst a second
copy in the DLQ, never none. If the copy cannot be published, the caller falls back to a
plain reject, and RabbitMQ dead-letters it (at-least-once) without our reason.
"""

import logging
import re
import uuid
from datetime import UTC, datetime
from typing import Any, cast

from django.db import DatabaseError, close_old_connections
from kombu.message import Message

from messaging.broker.topology import DEAD_LETTER_EXCHANGE, EVENTS_EXCHANGE, RETRY_EXCHANGE
from messaging.models import DeadLetterRecord
from messaging.registry import event_types, work_queue_names
from messaging.relay.messages import RawMessage
from messaging.relay.publisher import PublishError, process_publisher
from observability.logs import email_addresses_mask
from observability.metrics import DEAD_LETTERS

logger = logging.getLogger(__name__)

REASON_HEADER = "x-dead-letter-reason"  # plain words, for the person on duty
CLASS_HEADER = "x-dead-letter-class"  # malformed, permanent, retries_exhausted, needs_review, ...
AT_HEADER = "x-dead-lettered-at"
BY_HEADER = "x-dead-lettered-by"
ORIGIN_EXCHANGE_HEADER = "x-original-exchange"
ORIGIN_ROUTING_KEY_HEADER = "x-original-routing-key"
QUEUE_HEADER = "x-original-queue"
# Kept across replays, so a message that fails again shows its whole history.
COUNT_HEADER = "x-dead-letter-count"
FIRST_AT_HEADER = "x-first-dead-lettered-at"

_DELAY_PREFIX = re.compile(r"^(?:[01]\.){28}")  # Celery's native delayed-delivery routing prefix


def work_queue_for_delivery(exchange: str, routing_key: str) -> str | None:
    """Which of our work queues a delivery came from, judged by how it was routed."""
    routing_key = _DELAY_PREFIX.sub("", routing_key or "")
    if exchange == EVENTS_EXCHANGE.name:
        event_type = event_types().get(routing_key)
        return event_type.queue if event_type else None
    if exchange in ("", RETRY_EXCHANGE.name) or exchange.startswith("celery_delayed"):
        return routing_key if routing_key in work_queue_names() else None
    return None


def dead_letter_message(message: Message, *, reason: str, error_class: str, worker: str) -> bool:
    """Publish a copy of a received kombu message, with its reason, to the DLQ of its work
    queue; True once the broker confirmed it (the caller then acks the original)."""
    return dead_letter_publish(
        # kombu's stub says `str | None`: a received body is bytes, or str once py-amqp decoded it.
        body=cast(bytes | str, message.body),
        content_type=message.content_type,
        content_encoding=message.content_encoding,
        headers=message.headers,
        properties=message.properties,
        delivery_info=message.delivery_info,
        reason=reason,
        error_class=error_class,
        worker=worker,
    )


def dead_letter_publish(
    *,
    body: bytes | str,
    content_type: str | None,
    content_encoding: str | None,
    headers: dict[str, Any] | None,
    properties: dict[str, Any],
    delivery_info: dict[str, Any],
    reason: str,
    error_class: str,
    worker: str,
) -> bool:
    """Publish a copy with its reason to the DLQ of its work queue; True once confirmed."""
    exchange = delivery_info.get("exchange") or ""
    routing_key = delivery_info.get("routing_key") or ""
    queue = work_queue_for_delivery(exchange, routing_key)
    if queue is None:
        logger.error("cannot tell the work queue of a message from %r/%r", exchange, routing_key)
        return False
    headers = headers or {}
    # Messages carry ids only: a provider's refusal may quote the customer's address.
    reason = email_addresses_mask(reason)
    copy = RawMessage(
        event_id=uuid.uuid4(),
        body=body,
        exchange=DEAD_LETTER_EXCHANGE.name,
        routing_key=queue,
        content_type=content_type,
        content_encoding=content_encoding,
        headers=_dead_letter_headers(headers, reason, error_class, worker, exchange, routing_key, queue),
        properties={key: properties[key] for key in ("message_id", "correlation_id") if properties.get(key)},
    )
    try:
        report = process_publisher().publish([copy])
    except PublishError as exc:
        logger.error("dead-lettering a message from %s failed: %s", queue, exc)
        return False
    if report.failed:
        logger.error("dead-lettering a message from %s failed: %s", queue, report.failed[copy.event_id])
        return False
    DEAD_LETTERS.labels(queue, error_class).inc()
    extra = {"event_id": str(headers.get("id") or ""), "dead_letter_class": error_class}
    logger.warning("dead-lettered a message from %s (%s): %s", queue, error_class, reason, extra=extra)
    _history_record(headers, properties, queue=queue, reason=reason, error_class=error_class, worker=worker)
    return True


def _dead_letter_headers(
    headers: dict[str, Any],
    reason: str,
    error_class: str,
    worker: str,
    exchange: str,
    routing_key: str,
    queue: str,
) -> dict[str, Any]:
    """The message's own headers plus why, when, by whom and from where it was dead-lettered."""
    now = datetime.now(UTC).isoformat()
    return {
        **headers,
        REASON_HEADER: reason[:2000],
        CLASS_HEADER: error_class,
        AT_HEADER: now,
        FIRST_AT_HEADER: headers.get(FIRST_AT_HEADER) or now,
        COUNT_HEADER: dead_letter_count_of(headers.get(COUNT_HEADER)) + 1,
        BY_HEADER: worker,
        ORIGIN_EXCHANGE_HEADER: exchange,
        ORIGIN_ROUTING_KEY_HEADER: routing_key,
        QUEUE_HEADER: queue,
    }


def dead_letter_count_of(value: object) -> int:
    """How often the message was dead-lettered before: the count our workers wrote, or 0 for
    one that is not a count (a message made by hand); the dead letter must be written whatever
    the header holds."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def _history_record(headers: dict[str, Any], properties: dict[str, Any], **fields: str) -> None:
    """A row for `trace_event`; the DLQ holds the message itself, so a database that is away
    here loses only history."""
    event_id: uuid.UUID | None
    try:
        event_id = uuid.UUID(str(headers.get("id")))
    except ValueError:
        event_id = None
    try:
        close_old_connections()
        DeadLetterRecord.objects.create(
            event_id=event_id,
            message_id=str(properties.get("message_id") or "")[:255],
            dead_lettered_at=datetime.now(UTC),
            **fields,
        )
    except DatabaseError as exc:
        logger.error("could not record the dead letter of event %s: %s", event_id, exc)
