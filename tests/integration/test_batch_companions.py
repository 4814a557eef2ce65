"""What an email's delivery takes along from its queue (messaging/worker/companions.py) when a
message waiting there is not an ordinary first delivery: redelivered, not a task Celery could
run, expired, or due later. Real worker processes, RabbitMQ, PostgreSQL and the mail simulator.

Orders are queued while no worker runs; a worker with one pool process then prefetches the
first message, and its task takes the others along."""

import json
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from kombu import Connection

from config.celery import app
from messaging.broker.channel import amqp_channel
from messaging.dead_lettering import CLASS_HEADER, REASON_HEADER
from messaging.models import OutboxEvent
from messaging.task_names import HANDLE_EVENT, RELAY_OUTBOX_SWEEP
from notifications.models import Notification
from orders.services import order_create
from tests.broker import order_created_publish, queue_peek, queue_ready_count
from tests.integration.test_delivery_batches import BATCH_LINE
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

QUEUE = "orders.confirmations"


def _orders_queued(labels: list[str], already: int = 0) -> list:
    orders = [
        order_create(customer_email=f"{label}-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
        for n, label in enumerate(labels)
    ]
    total = already + len(labels)
    wait_until(lambda: queue_ready_count(QUEUE) == total, timeout=20, message=f"{total} queued")
    return orders


def _publish(body: bytes, headers: dict) -> None:
    order_created_publish(body, headers=headers)


def _task_message(args: list, **options) -> tuple[bytes, dict]:
    headers, _, body, _ = app.amqp.create_task_message(str(uuid.uuid4()), HANDLE_EVENT, args, {}, **options)
    return json.dumps(body).encode(), headers


def _envelope_of_a_new_order(label: str) -> dict:
    """The envelope of an order's event, without its own message (the outbox row is left)."""
    order = order_create(customer_email=f"{label}@example.com", amount=Decimal("5.00"), currency="EUR")
    wait_until(lambda: queue_ready_count(QUEUE) >= 1, timeout=20, message="queued")
    with Connection(settings.CELERY_BROKER_URL) as connection:
        message = amqp_channel(connection).basic_get(queue=QUEUE, no_ack=True)
    assert message is not None
    return OutboxEvent.objects.get(aggregate_id=str(order.id)).payload


def _batch_sizes(worker) -> list[int]:
    return [int(size) for size, _ in BATCH_LINE.findall(worker.log_text())]


def _sent(orders: list) -> None:
    ids = [order.id for order in orders]
    wait_until(
        lambda: Notification.objects.filter(order_id__in=ids, status="sent").count() == len(ids),
        timeout=90,
        message=f"all {len(ids)} sent",
    )


@pytest.mark.parametrize(
    ("kind", "error_class", "words"),
    [
        ("no-task-header", "malformed", "no 'task' header"),
        ("not-json", "malformed", "could not be decoded"),
        ("unknown-task", "unknown_task", "No task named 'notifications.no_such_task'"),
        ("missing-argument", "error", "missing a required argument: 'envelope'"),
        ("expired", "expired", "expired at"),
    ],
)
def test_a_message_celery_could_not_run_taken_along_is_dead_lettered_and_the_batch_goes_on(
    kind, error_class, words, mailsim, start_worker
):
    envelope = _envelope_of_a_new_order("template")
    first = _orders_queued(["first", "second"])
    past = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
    body, headers = {
        "no-task-header": lambda: (b"[[1], {}, {}]", {"id": str(uuid.uuid4())}),
        "not-json": lambda: (b"{not json", _task_message([envelope])[1]),
        "unknown-task": lambda: (
            _task_message([envelope])[0],
            {**_task_message([envelope])[1], "task": "notifications.no_such_task"},
        ),
        "missing-argument": lambda: _task_message([]),
        "expired": lambda: _task_message([envelope], expires=past),
    }[kind]()
    _publish(body, headers)
    after = _orders_queued(["third", "fourth"], already=3)
    worker = start_worker(concurrency=1)
    _sent(first + after)
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") == 1, timeout=30, message="one dead letter")
    [dead] = queue_peek(f"{QUEUE}.dlq")
    assert dead["headers"][CLASS_HEADER] == error_class
    assert words in dead["headers"][REASON_HEADER]
    assert _batch_sizes(worker) == [4], "the four good ones went in one batch"
    assert len(mailsim.messages()) == 4


def test_a_redelivered_message_is_never_taken_into_a_batch(mailsim, start_worker):
    orders = _orders_queued(["a", "b", "c", "d", "e"])
    # a consumer that takes three messages and dies: RabbitMQ returns them, redelivered
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        taken = [channel.basic_get(queue=QUEUE, no_ack=False) for _ in range(3)]
        assert None not in taken
        channel.close()  # unacked: back to the queue
    wait_until(lambda: queue_ready_count(QUEUE) == 5, timeout=20, message="all five back")
    worker = start_worker(concurrency=1)
    _sent(orders)
    sizes = _batch_sizes(worker)
    # the three redelivered went one by one, the two others together (the first task's own
    # message is one of either kind)
    assert sorted(sizes) in ([1, 1, 1, 2], [1, 1, 1, 1, 1]), sizes
    assert sum(sizes) == 5
    assert len(mailsim.messages()) == 5


def test_a_message_due_later_taken_along_goes_back_for_its_moment(mailsim, start_worker):
    envelope = _envelope_of_a_new_order("later")
    first = _orders_queued(["now"])
    eta = datetime.now(UTC) + timedelta(seconds=6)
    _publish(*_task_message([envelope], eta=eta.isoformat()))
    start_worker(concurrency=1)
    _sent(first)
    later = Notification.objects.filter(order__customer_email__startswith="later")
    wait_until(lambda: later.filter(status="sent").exists(), timeout=40, message="the later one sent")
    sent_at = later.get().sent_at
    assert sent_at is not None
    assert sent_at >= eta - timedelta(seconds=1)  # delayed delivery counts whole seconds
    assert len(mailsim.messages()) == 2


def test_a_provider_that_takes_one_call_at_a_time_gets_batches_of_one(smtpsim, start_worker):
    # given a backlog and SMTP, whose client sends one email after another: a batch of them
    # would outlive the time limits, which are set for one call
    orders = _orders_queued([f"smtp-{n}" for n in range(4)])
    worker = start_worker(
        concurrency=1, MAIL_PROVIDER="smtp", EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(smtpsim.port)
    )
    _sent(orders)
    # then each went alone, once
    assert _batch_sizes(worker) == [1, 1, 1, 1]
    assert len(smtpsim.messages()) == 4


def test_a_retry_of_a_message_taken_along_names_that_message_as_its_parent(mailsim, start_worker):
    # given two emails waiting; the provider refuses the second once, for a minute
    mailsim.set_faults({"kind": "503", "retry_after": 60, "times": 1, "to_contains": "taken-along"})
    carrier, taken = _orders_queued(["carrier", "taken-along"])
    worker = start_worker(concurrency=1)
    # when the first one's task takes the second along and publishes its retry
    _sent([carrier])
    wait_until(lambda: _batch_sizes(worker) == [2], timeout=30, message="a batch of two")
    # then the retry, due in a minute, is the taken message's own: its id, and it is its parent
    # (as Celery names the running task when a task retries its own message), not the carrier's.
    # Looked for until it shows: between two of the delay's levels a message is in no queue.
    # The worker stops only after: the batch's line is logged before its messages are settled,
    # and stopping kills the pool's children where they stand (ManagedProcess.stop).
    wait_until(lambda: len(_delayed_retries()) == 1, timeout=20, message="one delayed retry")
    worker.stop()
    delayed = _delayed_retries()
    assert len(delayed) == 1, delayed
    headers = delayed[0]["headers"]
    event_id = delayed[0]["body"][0][0]["event_id"]
    assert OutboxEvent.objects.get(aggregate_id=str(taken.id)).payload["event_id"] == event_id
    assert headers["parent_id"] == headers["id"]
    assert headers["retries"] == 1


def _delayed_retries() -> list[dict]:
    return [
        message
        for queue in _delay_queues_holding_messages()
        for message in queue_peek(queue)
        if message["headers"].get("task") == HANDLE_EVENT
    ]


def _delay_queues_holding_messages() -> list[str]:
    names = [f"celery_delayed_{level}" for level in range(28)]
    return [name for name in names if queue_ready_count(name) > 0]


def test_a_message_of_another_task_met_in_an_email_queue_is_given_back_and_run_as_celery_would(
    mailsim, start_worker
):
    # given an email, a message of the relay's sweep task (a task the worker has, not an email's
    # delivery) behind it, and another email
    first = _orders_queued(["before-the-sweep"])
    body, headers = _task_message_named(RELAY_OUTBOX_SWEEP)
    _publish(body, headers)
    after = _orders_queued(["after-the-sweep"], already=2)
    # when a worker runs the first, whose task would take the others along
    worker = start_worker(concurrency=1)
    _sent(first + after)
    # then the sweep went back to the queue and the worker's consumer ran it, as it runs any
    # message of a task it has: not dead-lettered as a task the worker lacks
    wait_until(
        lambda: f"Task {RELAY_OUTBOX_SWEEP}[{headers['id']}] succeeded" in worker.log_text(),
        timeout=30,
        message="the sweep ran",
    )
    assert queue_ready_count(f"{QUEUE}.dlq") == 0
    assert len(mailsim.messages()) == 2


def _task_message_named(name: str) -> tuple[bytes, dict]:
    headers, _, body, _ = app.amqp.create_task_message(str(uuid.uuid4()), name, [], {})
    return json.dumps(body).encode(), headers
