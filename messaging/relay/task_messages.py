"""Celery task messages for the relay, each made from a template of its task and routing key.

The messages of one task and routing key differ only in the task id and the arguments. The id
stands in several properties and headers (`id`, `root_id`, `argsrepr`, our tracking header,
`message_id`, `correlation_id`); the arguments are the first part of the body. So Celery builds
the message once per task and routing key, py-amqp encodes its properties once, and each
message only writes its id into those bytes and its arguments into the body. Building the
headers with Celery and encoding them with py-amqp for every message took a third of a
20,000-event relay drain (cProfile).
"""

import functools
import json
import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import amqp
from celery import current_app

TRACKING_HEADER = "x-publish-id"
CONTENT_TYPE, CONTENT_ENCODING = "application/json", "utf-8"
ORIGIN = f"relay@{socket.gethostname()}:{os.getpid()}"
# Where a message's task id goes: the text of a UUID is always 36 characters long, so the
# lengths encoded around it stay right, and no real id or routing key contains NULs.
_ID_SLOT = "\x00" * 36
_ID_SLOT_BYTES = _ID_SLOT.encode()


@dataclass(frozen=True)
class TaskMessageTemplate:
    properties: bytes  # the encoded content-header properties, with _ID_SLOT for the task id
    body_end: bytes  # the body after the arguments: the kwargs and Celery's embed

    def properties_of(self, task_id: uuid.UUID) -> bytes:
        return self.properties.replace(_ID_SLOT_BYTES, str(task_id).encode())

    def body_of(self, args: Sequence[Any]) -> bytes:
        return b"[" + json.dumps(list(args)).encode() + self.body_end


@functools.lru_cache(maxsize=256)  # a few task names times the event types
def task_message_template(task_name: str, routing_key: str) -> TaskMessageTemplate:
    """A Celery task message (protocol 2), persistent, with task id = message id."""
    headers, properties, body, _ = current_app.amqp.create_task_message(
        _ID_SLOT,
        task_name,
        (),
        {},
        ignore_result=True,
        # What Flower shows for the arguments. Given here because Celery's own safe repr of
        # the envelope was a third of the relay's time per message.
        argsrepr=f"({routing_key} {_ID_SLOT})",
        kwargsrepr="{}",
        origin=ORIGIN,
    )
    # Our tracking id rides in a header: a returned message is matched by it.
    headers[TRACKING_HEADER] = _ID_SLOT
    message = amqp.Message(
        b"",
        content_type=CONTENT_TYPE,
        content_encoding=CONTENT_ENCODING,
        application_headers=headers,
        delivery_mode=2,  # persistent
        **{**properties, "message_id": _ID_SLOT},
    )
    no_arguments = json.dumps(body).encode()
    assert no_arguments.startswith(b"[[]"), no_arguments  # (args, kwargs, embed)
    # py-amqp's own encoding, what its basic_publish writes for this message (a method without
    # stubs; tests/unit/test_relay_frames.py compares our frames with basic_publish's).
    properties = message._serialize_properties()  # type: ignore[attr-defined]
    return TaskMessageTemplate(properties=properties, body_end=no_arguments[3:])
