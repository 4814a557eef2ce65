"""The messages the relay publishes, built with Celery's and kombu's public APIs.

A task message is what Celery's own `send_task` would write for the task: Celery builds its
headers, properties and body (`app.amqp.create_task_message`, protocol 2), kombu serializes
the body with the app's task serializer. The worker consumes it as any Celery task message.
"""

import uuid
from dataclasses import dataclass
from typing import Any

import amqp
from celery import current_app
from kombu.serialization import dumps

from messaging.identity import current_process_name

# Our tracking id rides in a header of every message: a returned message is matched by it,
# whatever message_id the message itself carries.
TRACKING_HEADER = "x-publish-id"


@dataclass(frozen=True)
class OutgoingMessage:
    """A Celery task message carrying one event; task id = message id = event id."""

    event_id: uuid.UUID
    task_name: str
    args: tuple[Any, ...]  # the task's positional arguments, JSON values
    exchange: str
    routing_key: str


@dataclass(frozen=True)
class RawMessage:
    """Bytes published exactly as they are (a dead letter keeps the body it arrived with)."""

    event_id: uuid.UUID  # only our bookkeeping key: the message keeps its own properties
    body: bytes | str  # str: py-amqp decoded it by its content encoding, and encodes it back
    exchange: str
    routing_key: str
    content_type: str | None
    content_encoding: str | None
    headers: dict[str, Any]
    properties: dict[str, Any]


def amqp_message(message: OutgoingMessage | RawMessage) -> amqp.Message:
    return _raw_message(message) if isinstance(message, RawMessage) else _task_message(message)


def _task_message(message: OutgoingMessage) -> amqp.Message:
    """A Celery task message (protocol 2), persistent: task id = message id = the event id."""
    task_id = str(message.event_id)
    headers, properties, body, _ = current_app.amqp.create_task_message(
        task_id,
        message.task_name,
        message.args,
        {},
        ignore_result=True,
        # What Flower shows for the arguments: the event, not Celery's safe repr of the
        # whole envelope (a third of the relay's time per message when it was measured).
        argsrepr=f"({message.routing_key} {task_id})",
        kwargsrepr="{}",
        origin=f"relay@{current_process_name()}",
    )
    content_type, content_encoding, payload = dumps(body, serializer=current_app.conf.task_serializer)
    return amqp.Message(
        payload,
        content_type=content_type,
        content_encoding=content_encoding,
        application_headers={**headers, TRACKING_HEADER: task_id},
        delivery_mode=2,  # persistent
        **{**properties, "message_id": task_id},
    )


def _raw_message(message: RawMessage) -> amqp.Message:
    return amqp.Message(
        message.body,
        content_type=message.content_type,
        content_encoding=message.content_encoding,
        application_headers={**message.headers, TRACKING_HEADER: str(message.event_id)},
        delivery_mode=2,  # persistent
        **message.properties,
    )
