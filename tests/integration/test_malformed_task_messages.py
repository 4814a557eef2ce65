"""Messages whose headers or body Celery would choke on, met by the worker's consumer and taken
along by a batch: each goes to the dead-letter queue as `malformed` with its reason, the worker
carries on, and the good messages around them are sent (messaging/worker/failures.py,
`task_headers_problem` and `task_body_problem`). Real worker processes, RabbitMQ,
PostgreSQL and the mail simulator.

Before the check, a `task` header that is a list, or a message without an `id`, made Celery's
consumer raise outside what it settles (the message stayed unacknowledged, the worker's one
prefetch slot taken, and nothing after it ran); a `retries` of "two" failed the batch's handler
after its emails went out; a body asking to run eagerly or to start a chain was run."""

import json
import threading
import uuid
from decimal import Decimal

import pytest
from django.core import checks

from config.celery import app
from messaging.dead_lettering import CLASS_HEADER, COUNT_HEADER, REASON_HEADER
from messaging.task_names import HANDLE_EVENT
from notifications.models import Notification
from orders.models import Order
from orders.services import order_create
from tests.broker import order_created_publish, queue_peek, queue_ready_count
from tests.integration.row_locks import row_held
from tests.integration.test_batch_companions import QUEUE, _batch_sizes, _envelope_of_a_new_order, _sent
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _message(envelope: dict, *, headers: dict | None = None, embed: dict | None = None) -> tuple[bytes, dict]:
    made, _, body, _ = app.amqp.create_task_message(str(uuid.uuid4()), HANDLE_EVENT, [envelope], {})
    args, kwargs, made_embed = body
    return json.dumps([args, kwargs, {**made_embed, **(embed or {})}]).encode(), {**made, **(headers or {})}


# kind → (what is wrong, words of the reason). Each is made from a real order's envelope, so a
# worker that ran it would send an email: none may be sent.
MALFORMED: dict[str, tuple[dict, dict | None, str]] = {
    "task-is-a-list": ({"task": [HANDLE_EVENT]}, None, "'task' header is ['messaging.handle_event']"),
    "no-id": ({"id": None}, None, "'id' header is None"),
    "retries-not-a-number": ({"retries": "two"}, None, "'retries' header is 'two'"),
    "negative-retries": ({"retries": -1}, None, "'retries' header is -1"),
    "eta-unreadable": ({"eta": "soon"}, None, "'eta' header is 'soon'"),
    "timelimit-unreadable": ({"timelimit": "long"}, None, "'timelimit' header is 'long'"),
    "eager-body": ({}, {"is_eager": True}, "third part sets 'is_eager'"),
    "chain-in-body": ({}, {"chain": [{"task": "celery.backend_cleanup", "args": []}]}, "this one (chain)"),
    "retries-in-body": ({}, {"retries": "two"}, "third part sets 'retries'"),
}


def _malformed_published(*, carrier: str = "") -> dict[str, str]:
    """One message of each kind, in order, behind the good message of the order for `carrier`
    (if named); their customers' addresses by kind. The orders are made first, each taking
    its own message out of the queue while nothing else waits there (the queue gives the
    oldest first)."""
    wait_until(lambda: queue_ready_count(QUEUE) == 0, timeout=20, message="an empty queue")
    first = _envelope_of_a_new_order(carrier) if carrier else None
    envelopes = {kind: _envelope_of_a_new_order(f"bad-{kind}") for kind in MALFORMED}
    if first is not None:
        body, headers = _message(first)
        order_created_publish(body, headers=headers)
    already = 1 if first is not None else 0
    for kind, (changed, embed, _) in MALFORMED.items():
        body, message_headers = _message(envelopes[kind], headers=changed, embed=embed)
        order_created_publish(body, headers=message_headers)
    wait_until(lambda: queue_ready_count(QUEUE) == already + len(MALFORMED), timeout=20, message="published")
    return {kind: f"bad-{kind}@example.com" for kind in MALFORMED}


def _orders_queued(labels: list[str], already: int) -> list[Order]:
    orders = [
        order_create(customer_email=f"{label}@example.com", amount=Decimal("5.00"), currency="EUR")
        for label in labels
    ]
    total = already + len(labels)
    wait_until(lambda: queue_ready_count(QUEUE) == total, timeout=20, message=f"{total} queued")
    return orders


def _dead_letters_by_address() -> dict[str, dict]:
    letters = {}
    for letter in queue_peek(f"{QUEUE}.dlq"):
        envelope = letter["body"][0][0]
        order = Order.objects.get(id=envelope["order_id"])
        letters[order.customer_email] = letter["headers"]
    return letters


def _every_malformed_one_dead_lettered(addresses: dict[str, str], mailsim) -> None:
    wait_until(
        lambda: queue_ready_count(f"{QUEUE}.dlq") == len(MALFORMED),
        timeout=60,
        message=f"{len(MALFORMED)} dead letters",
    )
    letters = _dead_letters_by_address()
    for kind, address in addresses.items():
        headers = letters[address]
        assert (kind, headers[CLASS_HEADER]) == (kind, "malformed")
        assert MALFORMED[kind][2] in headers[REASON_HEADER], (kind, headers[REASON_HEADER])
    sent_to = {address for message in mailsim.messages() for address in message["to"]}
    assert not sent_to & set(addresses.values()), "a malformed message was run"


def test_malformed_messages_received_by_the_consumer_are_dead_lettered_and_the_worker_goes_on(
    mailsim, start_worker
):
    addresses = _malformed_published()  # the worker's consumer meets each of them first
    good = _orders_queued(["after-the-bad-ones"], already=len(MALFORMED))
    start_worker(concurrency=1)
    _sent(good)
    _every_malformed_one_dead_lettered(addresses, mailsim)
    assert len(mailsim.messages()) == 1


def test_malformed_messages_taken_along_are_dead_lettered_and_the_batch_goes_on(mailsim, start_worker):
    addresses = _malformed_published(carrier="carrier")
    after = _orders_queued(["behind-the-bad-ones"], already=1 + len(MALFORMED))
    worker = start_worker(concurrency=1)
    _sent([*Order.objects.filter(customer_email="carrier@example.com"), *after])
    _every_malformed_one_dead_lettered(addresses, mailsim)
    assert _batch_sizes(worker) == [2], "the two good ones went in one batch"
    assert len(mailsim.messages()) == 2


def test_a_dead_letter_count_that_is_not_a_number_starts_again_at_one(mailsim, start_worker):
    envelope = _envelope_of_a_new_order("counted")
    body, headers = _message(envelope, headers={"task": "notifications.no_such_task", COUNT_HEADER: "two"})
    order_created_publish(body, headers=headers)
    good = _orders_queued(["counted-good"], already=1)
    start_worker(concurrency=1)
    _sent(good)
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") == 1, timeout=30, message="one dead letter")
    [dead] = queue_peek(f"{QUEUE}.dlq")
    assert dead["headers"][CLASS_HEADER] == "unknown_task"
    assert dead["headers"][COUNT_HEADER] == 1


def test_an_order_row_held_by_someone_else_holds_back_only_its_own_delivery(mailsim, start_worker):
    orders = _orders_queued([f"locked-batch-{n}" for n in range(4)], already=0)
    held = orders[2]
    release = threading.Event()
    holder = row_held("orders_order", held.id, release)
    try:
        # the claim waits DELIVERY_LOCK_WAIT_SECONDS (2 s), far below the soft time limit
        worker = start_worker(concurrency=1, TASK_SOFT_TIME_LIMIT_SECONDS="30", TASK_TIME_LIMIT_SECONDS="40")
        others = [order for order in orders if order.id != held.id]
        _sent(others)  # while the row is still held
        assert not Notification.objects.filter(order=held, status="sent").exists()
        assert queue_ready_count(f"{QUEUE}.dlq") == 0
    finally:
        release.set()
        holder.join(timeout=10)
    _sent([held])  # its retry, once the row is free
    assert queue_ready_count(f"{QUEUE}.dlq") == 0
    assert "lock timeout" in worker.log_text()
    assert len(mailsim.messages()) == 4


@pytest.mark.parametrize("lock_wait", [0, -1, 60, 90.5])
def test_a_claim_lock_wait_the_time_limit_would_cut_is_refused_at_start_up(settings, lock_wait):
    settings.DELIVERY_LOCK_WAIT_SECONDS = lock_wait
    errors = [e for e in checks.run_checks() if e.id == "notifications.E009"]
    assert [e.msg for e in errors] == [
        f"DELIVERY_LOCK_WAIT_SECONDS ({lock_wait:g}) must be above 0 and below "
        f"TASK_SOFT_TIME_LIMIT_SECONDS ({settings.CELERY_TASK_SOFT_TIME_LIMIT}): a claim that waits "
        "for an order's row longer than that is cut by the time limit, with its whole batch."
    ]
    settings.DELIVERY_LOCK_WAIT_SECONDS = 2.0
    assert not [e for e in checks.run_checks() if e.id == "notifications.E009"]


def test_a_batch_cut_by_the_soft_time_limit_is_retried_not_dead_lettered(mailsim, start_worker):
    # given three emails, two of whose order rows another session holds: the batch's claim
    # waits its lock wait, then each claim alone waits again, past a short soft time limit
    orders = _orders_queued(["cut-0", "cut-1", "cut-2"], already=0)
    release = threading.Event()
    holders = [row_held("orders_order", order.id, release) for order in orders[1:]]
    try:
        # when one worker's task carries the three in one batch, and its soft time limit ends it
        worker = start_worker(
            concurrency=1,
            TASK_SOFT_TIME_LIMIT_SECONDS="2",
            TASK_TIME_LIMIT_SECONDS="4",
            # the email the cut task had claimed waits out its lease before its retry sends it
            NOTIFICATION_LEASE_SECONDS="6",
            DELIVERY_LOCK_WAIT_SECONDS="1.5",
            MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS="0.5",
            MAIL_PROVIDER_READ_TIMEOUT_SECONDS="1",
        )
        # then each is retried, as after any passing failure, not dead-lettered as unexpected
        wait_until(lambda: "soft time limit (2 s) ended this delivery" in worker.log_text(), timeout=40)
        assert queue_ready_count(f"{QUEUE}.dlq") == 0
    finally:
        release.set()
        for holder in holders:
            holder.join(timeout=10)
    _sent(orders)  # by their retries, once the rows are free
    assert queue_ready_count(f"{QUEUE}.dlq") == 0
    assert len({message["idempotency_key"] for message in mailsim.messages()}) == 3
