"""Nothing is dropped: every kind of bad message lands in the dead-letter queue with its
reason, and the worker goes on with the next good message. Real worker, real RabbitMQ."""

import json
import os
import pickle
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from config.celery import app
from messaging.dead_lettering import CLASS_HEADER, QUEUE_HEADER, REASON_HEADER
from messaging.models import OutboxEvent
from messaging.task_names import HANDLE_EVENT
from notifications.models import Notification
from tests.broker import order_created_publish, queue_peek, queue_ready_count
from tests.factories import OrderFactory, UnpublishedOrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

TASK = HANDLE_EVENT


class Exploit:
    """Unpickling this would create a file: proof that a pickle was deserialized."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _yaml_exploit(marker: Path) -> bytes:
    """A YAML document that runs a command when an unsafe loader reads it."""
    return f"!!python/object/apply:os.system ['touch {marker}']\n".encode()


def _publish(body: bytes, *, content_type: str, headers: dict, message_id: str) -> None:
    order_created_publish(body, headers=headers, content_type=content_type, message_id=message_id)


def _task_message(envelope_args: list, *, task: str = TASK, expires: str | None = None) -> tuple[bytes, dict]:
    task_id = str(uuid.uuid4())
    headers, _, body, _ = app.amqp.create_task_message(task_id, task, envelope_args, {}, expires=expires)
    return json.dumps(body).encode(), headers


def _unpublished_envelope() -> dict:
    """The envelope of a valid order whose event was never published (nor sent)."""
    order = UnpublishedOrderFactory.create(customer_email="template@example.com")
    return OutboxEvent.objects.get(aggregate_id=str(order.id)).payload


def _past() -> str:
    return (datetime.now(UTC) - timedelta(minutes=5)).isoformat()


# kind: (how to build the bad message from a valid envelope, expected class, words in the reason)
BAD_MESSAGES = {
    "not-json": (lambda e, m: (b"{this is not json", _task_message([e])[1], JSON), "malformed", "decoded"),
    "pickle": (
        lambda e, m: (pickle.dumps(Exploit(m)), _task_message([e])[1], "application/x-python-serialize"),
        "malformed",
        "only JSON is accepted",
    ),
    "yaml": (
        lambda e, m: (_yaml_exploit(m), _task_message([e])[1], "application/x-yaml"),
        "malformed",
        "only JSON is accepted",
    ),
    "no-task-header": (
        lambda e, m: (b"[1, 2, 3]", {"id": str(uuid.uuid4())}, JSON),
        "malformed",
        "no 'task' header",
    ),
    "unknown-task": (
        lambda e, m: (*_task_message([e], task="notifications.no_such_task"), JSON),
        "unknown_task",
        "",
    ),
    "missing-argument": (lambda e, m: (*_task_message([]), JSON), "error", "missing 1 required positional"),
    "extra-argument": (lambda e, m: (*_task_message([e, "surprise"]), JSON), "error", "takes 2 positional"),
    "missing-field": (
        lambda e, m: (*_task_message([{k: v for k, v in e.items() if k != "order_id"}]), JSON),
        "permanent",
        "lacks the field(s): order_id",
    ),
    "unknown-schema": (
        lambda e, m: (*_task_message([{**e, "schema_version": 7}]), JSON),
        "permanent",
        "Schema version 7",
    ),
    "unknown-order": (
        lambda e, m: (
            *_task_message([{**e, "order_id": str(uuid.uuid4()), "event_id": str(uuid.uuid4())}]),
            JSON,
        ),
        "permanent",
        "does not exist",
    ),
    "expired": (lambda e, m: (*_task_message([e], expires=_past()), JSON), "expired", "expired at"),
}
JSON = "application/json"


@pytest.mark.parametrize("kind", sorted(BAD_MESSAGES))
def test_a_bad_message_is_dead_lettered_with_its_reason_and_the_worker_goes_on(
    kind, mailsim, module_worker, tmp_path
):
    build, expected_class, expected_words = BAD_MESSAGES[kind]
    marker = tmp_path / "pickle-was-run"
    body, headers, content_type = build(_unpublished_envelope(), marker)
    # when
    _publish(body, content_type=content_type, headers=headers, message_id=kind)
    good = OrderFactory.create(customer_email="after-the-bad-one@example.com")
    # then the bad one is in the DLQ with its reason, byte for byte
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") >= 1, timeout=20, message="dead letter")
    dead_letters = queue_peek("orders.confirmations.dlq")
    assert len(dead_letters) == 1, [(d["properties"].get("message_id"), d["headers"]) for d in dead_letters]
    [dead] = dead_letters
    assert dead["properties"]["message_id"] == kind
    assert dead["headers"][CLASS_HEADER] == expected_class, dead["headers"][REASON_HEADER]
    assert expected_words in dead["headers"][REASON_HEADER]
    assert dead["headers"][QUEUE_HEADER] == "orders.confirmations"
    assert dead["properties"]["content_type"] == content_type
    assert not marker.exists(), "a pickled message was deserialized"
    # and the worker lives on: the next good message is sent
    wait_until(
        lambda: Notification.objects.filter(order=good, status="sent").exists(),
        timeout=20,
        message="good sent",
    )
    assert module_worker.process.poll() is None
    assert [m["to"] for m in mailsim.messages()] == [["after-the-bad-one@example.com"]]
    assert queue_ready_count("orders.confirmations") == 0


def test_a_replayed_event_whose_first_copy_expired_is_still_processed(mailsim, module_worker):
    # Celery would put the expired task id on its revoked list and drop the replay too.
    envelope = _unpublished_envelope()
    task_id = envelope["event_id"]
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


def test_the_exploit_payloads_would_run_their_command_if_deserialized(tmp_path):
    # The worker tests above prove something only if these payloads really act when decoded.
    pickled, yamled = tmp_path / "pickle-ran", tmp_path / "yaml-ran"
    pickle.loads(pickle.dumps(Exploit(pickled)))  # unpickling is the point of this test
    yaml.unsafe_load(_yaml_exploit(yamled))
    assert pickled.exists()
    assert yamled.exists()
