"""The relay's task messages (messaging/relay/task_messages.py) and their frames
(messaging/relay/frames.py), byte for byte against what py-amqp's basic_publish writes for the
message Celery builds: the same properties, headers and body, framed the same way."""

import json
import uuid
from types import SimpleNamespace

import amqp
import pytest
from amqp import spec
from amqp.method_framing import frame_writer
from amqp.serialization import dumps
from celery import current_app

from messaging.relay.frames import basic_publish_method_frame, content_frames
from messaging.relay.task_messages import ORIGIN, TRACKING_HEADER, task_message_template

TASK, EXCHANGE, ROUTING_KEY, CHANNEL = "messaging.handle_event", "orders.events", "order.created", 7


def _celery_message(event_id: uuid.UUID, args: tuple) -> amqp.Message:
    """The message as Celery builds it for each task, with our tracking header and message id."""
    task_id = str(event_id)
    headers, properties, body, _ = current_app.amqp.create_task_message(
        task_id,
        TASK,
        args,
        {},
        ignore_result=True,
        argsrepr=f"({ROUTING_KEY} {task_id})",
        kwargsrepr="{}",
        origin=ORIGIN,
    )
    return amqp.Message(
        json.dumps(body).encode(),
        content_type="application/json",
        content_encoding="utf-8",
        application_headers={**headers, TRACKING_HEADER: task_id},
        delivery_mode=2,
        **{**properties, "message_id": task_id},
    )


def _basic_publish_writes(message: amqp.Message, *, frame_max: int) -> bytes:
    """What Channel.basic_publish hands py-amqp's frame writer, and what the writer writes."""
    written: list[bytes] = []
    connection = SimpleNamespace(frame_max=frame_max, bytes_sent=0)
    write_frame = frame_writer(connection, SimpleNamespace(write=lambda data: written.append(bytes(data))))
    arguments = dumps("Bssbb", (0, EXCHANGE, ROUTING_KEY, True, False))
    write_frame(1, CHANNEL, spec.Basic.Publish, arguments, message)
    return b"".join(written)


@pytest.mark.parametrize(
    ("envelope", "frame_max"),
    [
        ({"event_id": "e", "order_id": str(uuid.uuid4()), "schema_version": 1}, 131072),
        # a body longer than a frame goes out in several body frames
        ({"event_id": "e", "note": "ü" * 3000}, 4096),
    ],
)
def test_a_templated_task_message_is_written_as_basic_publish_writes_celerys(envelope, frame_max):
    event_id = uuid.uuid4()
    template = task_message_template(TASK, ROUTING_KEY)
    # when
    ours = basic_publish_method_frame(CHANNEL, EXCHANGE, ROUTING_KEY) + b"".join(
        content_frames(CHANNEL, frame_max, template.properties_of(event_id), template.body_of((envelope,)))
    )
    # then
    assert ours == _basic_publish_writes(_celery_message(event_id, (envelope,)), frame_max=frame_max)


def test_every_place_of_the_task_id_gets_the_messages_id():
    event_id = uuid.uuid4()
    properties = task_message_template(TASK, ROUTING_KEY).properties_of(event_id)
    assert b"\x00" * 36 not in properties
    # id, root_id, argsrepr, our tracking header, message_id and correlation_id
    assert properties.count(str(event_id).encode()) == 6
