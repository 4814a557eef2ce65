"""Nothing is dropped: every kind of bad message lands in the dead-letter queue with its
reason, and the worker goes on with the next good message. Real worker, real RabbitMQ."""

import json
import os
import pickle
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection, Producer

from config.celery import app
from notifications.broker.dead_letters import CLASS_HEADER, QUEUE_HEADER, REASON_HEADER
from notifications.models import Notification
from notifications.outbox import notification_expect, outbox_event_build
from notifications.registry import ORDER_CREATED
from orders.models import Order
from orders.services import order_create
from tests.broker import queue_peek, queue_ready_count
from tests.conftest import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

TASK = "notifications.handle_event"


class Exploit:
    """Unpickling this would create a file: proof that a pickle was deserialized."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _publish(body: bytes, *, content_type: str, headers: dict, message_id: str) -> None:
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = connection.channel()
        channel.confirm_select()
        Producer(channel).publish(
            body,
            exchange="orders.events",
            routing_key="order.created",
            content_type=content_type,
            content_encoding="utf-8" if "json" in content_type else "binary",
            headers=headers,
            message_id=message_id,
            delivery_mode=2,
            mandatory=True,
        )


def _task_message(envelope_args: list, *, task: str = TASK, expires: str | None = None) -> tuple[bytes, dict]:
    task_id = str(uuid.uuid4())
    headers, _, body, _ = app.amqp.create_task_message(task_id, task, envelope_args, {}, expires=expires)
    return json.dumps(body).encode(), headers


def _unpublished_envelope() -> dict:
    """The envelope of a valid order whose event was never published (nor sent)."""
    order = Order.objects.create(customer_email="template@example.com", amount="5.00", currency="EUR")
    notification_expect(order=order, kind=ORDER_CREATED.notification_kind)
    return outbox_event_build(order=order, event_type=ORDER_CREATED).payload


def test_every_kind_of_bad_message_is_dead_lettered_with_its_reason_and_the_worker_lives_on(
    mailsim, start_worker, tmp_path
):
    # given a valid envelope to spoil in every way
    envelope = _unpublished_envelope()
    marker = tmp_path / "pickle-was-run"
    past = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
    cases = {}

    def case(name: str, body: bytes, headers: dict, content_type: str = "application/json", **expected):
        cases[name] = expected
        _publish(body, content_type=content_type, headers=headers, message_id=name)

    case("not-json", b"{this is not json", _task_message([envelope])[1], klass="malformed", reason="decoded")
    case(
        "pickle",
        pickle.dumps(Exploit(marker)),
        _task_message([envelope])[1],
        content_type="application/x-python-serialize",
        klass="malformed",
        reason="only JSON is accepted",
    )
    case("unknown-task", *_task_message([envelope], task="notifications.no_such_task"), klass="unknown_task")
    case(
        "no-task-header",
        b"[1, 2, 3]",
        {"id": str(uuid.uuid4())},
        klass="malformed",
        reason="no 'task' header",
    )
    case("missing-argument", *_task_message([]), klass="error", reason="TypeError")
    case("extra-argument", *_task_message([envelope, "surprise"]), klass="error", reason="TypeError")
    missing_field = {k: v for k, v in envelope.items() if k != "order_id"}
    case(
        "missing-field",
        *_task_message([missing_field]),
        klass="permanent",
        reason="lacks the field(s): order_id",
    )
    case(
        "unknown-schema",
        *_task_message([{**envelope, "schema_version": 7}]),
        klass="permanent",
        reason="Schema version 7",
    )
    case(
        "unknown-order",
        *_task_message([{**envelope, "order_id": str(uuid.uuid4()), "event_id": str(uuid.uuid4())}]),
        klass="permanent",
        reason="does not exist",
    )
    case("expired", *_task_message([envelope], expires=past), klass="expired", reason="expired at")
    # when a worker takes them, followed by one good message
    start_worker()
    wait_until(
        lambda: queue_ready_count("orders.confirmations.dlq") == len(cases), timeout=60, message="all DLQ"
    )
    good = order_create(customer_email="after-the-bad-ones@example.com", amount="5.00", currency="EUR")
    # then
    wait_until(
        lambda: Notification.objects.filter(order=good, status="sent").exists(),
        timeout=30,
        message="good sent",
    )
    dead = {
        message["properties"].get("message_id"): message for message in queue_peek("orders.confirmations.dlq")
    }
    assert set(dead) == set(cases)
    for name, expected in cases.items():
        headers = dead[name]["headers"]
        assert headers[CLASS_HEADER] == expected["klass"], (name, headers.get(REASON_HEADER))
        assert expected.get("reason", "") in headers[REASON_HEADER], (name, headers[REASON_HEADER])
        assert headers[QUEUE_HEADER] == "orders.confirmations"
    assert not marker.exists(), "a pickled message was deserialized"
    assert dead["pickle"]["properties"]["content_type"] == "application/x-python-serialize"
    assert queue_ready_count("orders.confirmations") == 0
    assert [m["to"] for m in mailsim.messages()] == [["after-the-bad-ones@example.com"]]


def test_a_replayed_event_whose_first_copy_expired_is_still_processed(mailsim, start_worker):
    # Celery would put the expired task id on its revoked list and drop the replay too.
    envelope = _unpublished_envelope()
    task_id = envelope["event_id"]
    start_worker(concurrency=1)
    # given an expired copy of the event, dead-lettered
    body, headers = _task_message([envelope], expires=(datetime.now(UTC) - timedelta(minutes=1)).isoformat())
    headers["id"] = task_id
    _publish(body, content_type="application/json", headers=headers, message_id="expired-copy")
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=20, message="expired dead")
    # when the event is replayed under the same task id
    body, headers = _task_message([envelope])
    headers["id"] = task_id
    _publish(body, content_type="application/json", headers=headers, message_id="replayed-copy")
    # then it is processed and the email sent
    wait_until(lambda: Notification.objects.filter(status="sent").exists(), timeout=20, message="replay sent")
    assert [m["to"] for m in mailsim.messages()] == [["template@example.com"]]
    assert queue_ready_count("orders.confirmations.dlq") == 1
