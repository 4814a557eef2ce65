"""An email's delivery takes the messages waiting behind it in its queue along into a batch
(messaging/worker/companions.py, notifications/delivery/handler.py): one claim transaction,
the provider calls at the same time, one outcome transaction, each message acked after that
commit. A crash anywhere in
a batch loses nothing and sends nothing twice. Real worker processes, RabbitMQ, PostgreSQL and
the mail simulator over HTTP.

The orders are placed while no worker runs, then one worker with one pool process starts: it
prefetches the first message, whose task takes the others along, so every test below has a
batch of several."""

import json
import re
import uuid
from decimal import Decimal

import pytest

from config.celery import app
from messaging.dead_lettering import CLASS_HEADER, REASON_HEADER
from messaging.models import OutboxEvent
from messaging.task_names import HANDLE_EVENT
from notifications.models import Notification
from orders.services import order_create
from tests.broker import order_created_publish, queue_peek, queue_ready_count
from tests.integration.short_lease import SHORT_LEASE
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

ORDERS = 8
BATCH_LINE = re.compile(r"a batch of (\d+) deliveries handled, (\d+) sent to the provider")


def _orders_waiting(count: int, label: str) -> list:
    orders = [
        order_create(customer_email=f"{label}-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
        for n in range(count)
    ]
    wait_until(
        lambda: queue_ready_count("orders.confirmations") == count, timeout=20, message="all events queued"
    )
    return orders


def _all_sent_once(mailsim, orders: list) -> list[Notification]:
    ids = [order.id for order in orders]
    wait_until(
        lambda: Notification.objects.filter(order_id__in=ids, status="sent").count() == len(ids),
        timeout=90,
        message=f"all {len(ids)} emails sent",
    )
    notifications = list(Notification.objects.filter(order_id__in=ids))
    keys = [message["idempotency_key"] for message in mailsim.messages()]
    # exactly one message per email at the provider: none lost, none twice
    assert sorted(keys) == sorted(n.idempotency_key for n in notifications)
    wait_until(lambda: queue_ready_count("orders.confirmations") == 0, timeout=30, message="queue empty")
    assert queue_ready_count("orders.confirmations.dlq") == 0
    return notifications


def _batch_sizes(worker) -> list[int]:
    return [int(size) for size, _ in BATCH_LINE.findall(worker.log_text())]


def test_a_backlog_goes_out_in_batches_each_email_once(mailsim, start_worker):
    orders = _orders_waiting(ORDERS, "backlog")
    worker = start_worker(concurrency=1)
    notifications = _all_sent_once(mailsim, orders)
    sizes = _batch_sizes(worker)
    assert sum(sizes) == ORDERS, sizes
    assert max(sizes) >= 2, f"the backlog never formed a batch: {sizes}"
    for notification in notifications:  # one attempt each, accepted, with the inbox row
        assert list(notification.attempts.values_list("outcome", flat=True)) == ["accepted"]
    assert all(n.sent_at is not None for n in notifications)


def test_a_lone_message_goes_out_at_once_in_a_batch_of_one(mailsim, start_worker):
    worker = start_worker(concurrency=1)
    order = order_create(customer_email="alone@example.com", amount=Decimal("5.00"), currency="EUR")
    _all_sent_once(mailsim, [order])
    assert _batch_sizes(worker) == [1]


# point: what the notifications look like when the doomed worker died, and the attempts the
# fresh worker leaves behind for the emails the batch had claimed
BATCH_CRASHES = {
    # claims committed, no provider call yet: the fresh worker finds open attempts of a dead
    # process, closes them as unknown and resends under the same key (the simulator dedupes)
    "worker.batch_after_claim": ("sending", ["unknown", "accepted"]),
    # one call accepted, the others may or may not have reached the provider
    "worker.batch_after_one_accept": ("sending", ["unknown", "accepted"]),
    # every call answered, nothing recorded
    "worker.batch_after_sends": ("sending", ["unknown", "accepted"]),
    # everything recorded, nothing acked: the redelivered messages are duplicates
    "worker.batch_after_commit": ("sent", ["accepted"]),
}


@pytest.mark.parametrize("point", sorted(BATCH_CRASHES))
def test_a_worker_dying_inside_a_batch_loses_nothing_and_doubles_nothing(point, mailsim, start_worker):
    status_at_crash, attempts_after = BATCH_CRASHES[point]
    orders = _orders_waiting(ORDERS, point.replace(".", "-"))
    # the first task takes the others along; these crash points fire only in a batch of several
    doomed = start_worker(concurrency=1, FAULT_CRASH_POINT=point, **SHORT_LEASE)  # its leases are waited out
    doomed.wait_for_log(f"crash point {point} reached", timeout=40)
    doomed.process.wait(timeout=15)  # its main process was killed too: nothing was acked
    statuses = list(Notification.objects.filter(order__in=orders).values_list("status", flat=True))
    assert status_at_crash in statuses, statuses
    # a fresh worker takes every redelivered message over, once the dead worker's leases ran out
    start_worker(concurrency=1, **SHORT_LEASE)
    notifications = _all_sent_once(mailsim, orders)
    caught = [n for n in notifications if n.attempts.count() > 1 or point == "worker.batch_after_commit"]
    assert caught, "no email was inside the batch that crashed"
    for notification in notifications:
        outcomes = list(notification.attempts.order_by("number").values_list("outcome", flat=True))
        assert outcomes in (["accepted"], attempts_after), (notification.pk, outcomes)
    if point != "worker.batch_after_commit":
        assert any(n.attempts.count() == 2 for n in notifications)


def _publish_task(envelope: dict) -> None:
    task_id = str(uuid.uuid4())
    headers, _, body, _ = app.amqp.create_task_message(task_id, HANDLE_EVENT, [envelope], {})
    order_created_publish(json.dumps(body).encode(), headers=headers)


def test_a_bad_envelope_inside_a_batch_is_dead_lettered_and_the_others_are_sent(mailsim, start_worker):
    orders = _orders_waiting(4, "first")
    envelope = OutboxEvent.objects.filter(aggregate_id=str(orders[0].id)).get().payload
    _publish_task({**envelope, "schema_version": 7, "event_id": str(uuid.uuid4())})  # unknown schema
    more = [
        order_create(customer_email=f"after-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
        for n in range(3)
    ]
    wait_until(lambda: queue_ready_count("orders.confirmations") == 8, timeout=20, message="all queued")
    worker = start_worker(concurrency=1)
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=60, message="dead letter")
    [dead] = queue_peek("orders.confirmations.dlq")
    assert dead["headers"][CLASS_HEADER] == "permanent"
    assert "Schema version 7" in dead["headers"][REASON_HEADER]
    ids = [order.id for order in orders + more]
    wait_until(
        lambda: Notification.objects.filter(order_id__in=ids, status="sent").count() == 7,
        timeout=60,
        message="the good ones sent",
    )
    assert len(mailsim.messages()) == 7
    assert max(_batch_sizes(worker)) >= 2


def test_each_email_of_a_batch_follows_its_own_outcome(mailsim, start_worker):
    # given a batch whose calls end differently: two refused for good, two answered 503 once,
    # two dropped after the provider accepted them, two accepted
    mailsim.set_faults(
        {"kind": "reject", "to_contains": "refused"},
        {"kind": "503", "retry_after": 1, "times": 2, "to_contains": "busy"},
        {"kind": "accept_then_drop", "times": 2, "to_contains": "dropped"},
    )
    labels = ["first", "refused", "busy", "dropped", "fine", "refused", "busy", "dropped", "fine"]
    orders = [
        order_create(customer_email=f"{label}-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
        for n, label in enumerate(labels)
    ]
    wait_until(lambda: queue_ready_count("orders.confirmations") == len(orders), timeout=20, message="queued")
    worker = start_worker(concurrency=1, DELIVERY_RETRY_BASE_DELAY_SECONDS="1")
    final = ("sent", "failed")
    wait_until(
        lambda: Notification.objects.filter(order__in=orders, status__in=final).count() == len(orders),
        timeout=90,
        message="every email final",
    )
    assert max(_batch_sizes(worker)) >= 2
    by_label: dict[str, list[tuple[str, list[str]]]] = {}
    for order, label in zip(orders, labels, strict=True):
        notification = Notification.objects.get(order=order)
        outcomes = list(notification.attempts.order_by("number").values_list("outcome", flat=True))
        by_label.setdefault(label, []).append((notification.status, outcomes))
    assert by_label["refused"] == [("failed", ["permanent"])] * 2
    assert by_label["busy"] == [("sent", ["transient", "accepted"])] * 2  # retried on its own
    assert by_label["dropped"] == [("sent", ["unknown", "accepted"])] * 2  # resent under its key
    assert by_label["fine"] == [("sent", ["accepted"])] * 2
    # the refused went to the dead-letter queue with their reason, nothing else did
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 2, timeout=20, message="2 dead")
    assert {dead["headers"][CLASS_HEADER] for dead in queue_peek("orders.confirmations.dlq")} == {"permanent"}
    # one message per sent email at the provider
    sent_keys = sorted(
        Notification.objects.filter(order__in=orders, status="sent").values_list("idempotency_key", flat=True)
    )
    assert sorted(message["idempotency_key"] for message in mailsim.messages()) == sent_keys


def test_a_retry_from_a_batch_carries_the_same_event_to_the_provider_again(mailsim, start_worker):
    # given a backlog whose emails the provider refuses once each with a 503
    mailsim.set_faults({"kind": "503", "retry_after": 1, "times": 4, "to_contains": "again"})
    orders = _orders_waiting(4, "again")
    # when one worker sends them, in batches, and publishes their retries from the pool process
    worker = start_worker(concurrency=1, DELIVERY_RETRY_BASE_DELAY_SECONDS="1")
    notifications = _all_sent_once(mailsim, orders)
    # then each retry was the same event again: the same event id in both attempts and at the
    # provider, the same key, one email
    assert max(_batch_sizes(worker)) >= 2
    event_of = {
        str(order.id): str(OutboxEvent.objects.get(aggregate_id=str(order.id)).id) for order in orders
    }
    requests_by_key: dict[str, list[str]] = {}
    for request in mailsim.requests_log():
        requests_by_key.setdefault(request["idempotency_key"], []).append(request["event_id"])
    for notification in notifications:
        event_id = event_of[str(notification.order_id)]
        attempts = list(notification.attempts.order_by("number").values_list("outcome", "event_id"))
        assert [(outcome, str(event)) for outcome, event in attempts] == [
            ("transient", event_id),
            ("accepted", event_id),
        ]
        assert requests_by_key[notification.idempotency_key] == [event_id, event_id]
