"""Attacks on the worker's message runner (messaging/worker/): what a message may carry, what a
batch trusts of the messages it takes along, and where that changes an outcome. Real worker
processes, RabbitMQ, PostgreSQL and the mail simulator.

Each test states the promise: never lose an email, never send one twice, every message that
cannot be run goes to its dead-letter queue with a reason, one bad message harms no other."""

import json
import socket
import sys
import threading
import uuid
from decimal import Decimal
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.core.management import CommandError, call_command

from config.celery import app
from messaging.dead_lettering import CLASS_HEADER, REASON_HEADER
from messaging.task_names import HANDLE_EVENT
from notifications.models import Notification
from orders.models import Order
from orders.services import order_create
from tests.broker import order_created_publish, queue_peek, queue_ready_count
from tests.integration.row_locks import row_held
from tests.integration.tcp_proxy import TcpProxy
from tests.integration.test_batch_companions import QUEUE, _envelope_of_a_new_order, _sent
from tests.integration.test_malformed_task_messages import _orders_queued
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _publish(envelope: dict, *, headers: dict | None = None, **options) -> None:
    task_id = str(uuid.uuid4())
    made, _, body, _ = app.amqp.create_task_message(task_id, HANDLE_EVENT, [envelope], {}, **options)
    order_created_publish(json.dumps(body).encode(), headers={**made, **(headers or {})})


def _order(label: str) -> Order:
    return order_create(customer_email=f"{label}@example.com", amount=Decimal("5.00"), currency="EUR")


def _dead_letters() -> list[dict]:
    return queue_peek(f"{QUEUE}.dlq")


def _address_of(letter: dict) -> str:
    return Order.objects.get(id=letter["body"][0][0]["order_id"]).customer_email


def test_a_message_whose_headers_header_is_not_a_table_taken_along_harms_no_other(mailsim, start_worker):
    """A task message may carry an AMQP header named `headers`. Celery's request context takes
    every header as a field, and `headers` is the one that holds the custom headers
    (x-retry-since): a text there makes `delivery_of` fail on `.get` while the batch is
    being put together, before any claim. The whole batch then fails with the carrier's own
    message: the good carrier is dead-lettered as an unexpected error and its email is not
    sent; the bad message should have been the only one to go to the dead-letter queue."""
    wait_until(lambda: queue_ready_count(QUEUE) == 0, timeout=20, message="an empty queue")
    carrier = _envelope_of_a_new_order("carrier")
    bad = _envelope_of_a_new_order("bad-headers")
    _publish(carrier)
    _publish(bad, headers={"headers": "not a table"})
    after = _orders_queued(["after-the-bad-one"], already=2)
    start_worker(concurrency=1)
    _sent(after)
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") >= 1, timeout=30, message="a dead letter")
    # give a wrongly dead-lettered carrier time to show up too
    carrier_order = Order.objects.get(customer_email="carrier@example.com")
    wait_until(
        lambda: (
            Notification.objects.filter(order=carrier_order, status="sent").exists()
            or queue_ready_count(f"{QUEUE}.dlq") >= 2
        ),
        timeout=30,
        message="the carrier settled",
    )
    letters = {_address_of(letter): letter["headers"] for letter in _dead_letters()}
    assert "carrier@example.com" not in letters, (
        "the good carrier was dead-lettered because of the message taken along: "
        f"{letters['carrier@example.com'][CLASS_HEADER]}: {letters['carrier@example.com'][REASON_HEADER]}"
    )
    assert Notification.objects.filter(order=carrier_order, status="sent").exists()
    assert set(letters) == {"bad-headers@example.com"}
    sent_to = {address for message in mailsim.messages() for address in message["to"]}
    assert "bad-headers@example.com" not in sent_to


def test_an_email_whose_claim_raises_a_non_database_error_holds_back_only_itself(mailsim, start_worker):
    """ "If a batch's transaction fails, each delivery of it is claimed or recorded alone, so
    one bad row holds back nobody" (docs/architecture.md). `_together_or_alone` only splits
    the batch on a DatabaseError: anything else the claim of one email raises (here its
    order's stored content lacks the currency, and building the email's values raises a
    KeyError outside the renderer's RenderError) leaves the batch's claim transaction, and
    `events_dispatch_batch` gives that one exception to every delivery of the batch. Every
    email of the batch, the carrier's too, is dead-lettered as an unexpected error and none
    is sent; only the bad one should be."""
    from orders.models import OrderVersion

    wait_until(lambda: queue_ready_count(QUEUE) == 0, timeout=20, message="an empty queue")
    orders = _orders_queued(["batch-0", "batch-1", "bad-content", "batch-3"], already=0)
    bad = orders[2]
    # the bad order's email shows a stored version of what was bought, one without a currency
    OrderVersion.objects.create(order=bad, number=1, content={"lines": []}, total_minor=0)
    Order.objects.filter(id=bad.id).update(content_version=1)
    good = [order for order in orders if order.id != bad.id]
    start_worker(concurrency=1)
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") >= 1, timeout=60, message="a dead letter")
    wait_until(
        lambda: (
            Notification.objects.filter(order__in=good, status="sent").count() == len(good)
            or queue_ready_count(f"{QUEUE}.dlq") >= 2
        ),
        timeout=60,
        message="the good ones settled",
    )
    letters = {_address_of(letter): letter["headers"] for letter in _dead_letters()}
    harmed = {address: headers[REASON_HEADER] for address, headers in letters.items() if "batch-" in address}
    assert not harmed, f"good emails dead-lettered because of another's claim: {harmed}"
    _sent(good)
    assert set(letters) == {"bad-content@example.com"}


SHORT_CLOCKS = {
    "TASK_SOFT_TIME_LIMIT_SECONDS": "8",
    "TASK_TIME_LIMIT_SECONDS": "12",
    "NOTIFICATION_LEASE_SECONDS": "15",
    "MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS": "1",
    "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": "4",
}


def test_a_notification_row_held_during_the_calls_holds_back_only_its_own_email(mailsim, start_worker):
    """The claim waits at most DELIVERY_LOCK_WAIT_SECONDS for a row lock (the earlier
    fix), the outcome's write waits without a limit: `notification_record_outcomes` updates
    every notification of the batch (`accepted_record`, `select_for_update`) with no
    lock_timeout. A notification row that someone locks while the batch's calls are out
    (a person's open transaction, a stuck session) holds the whole record step until the soft
    time limit; SoftTimeLimitExceeded is no DatabaseError, so `_together_or_alone` does not
    split the batch: every email of it, each accepted by the provider, is dead-lettered as an
    unexpected error and stays `sending`, waiting for a person to replay it."""
    mailsim.set_faults({"kind": "stall", "seconds": 3, "to_contains": "record-lock"})
    orders = _orders_queued([f"record-lock-{n}" for n in range(4)], already=0)
    held = orders[2]
    start_worker(concurrency=1, **SHORT_CLOCKS)
    # once the batch's claims committed, its calls are out (the provider answers in 3 s)
    wait_until(
        lambda: Notification.objects.filter(order__in=orders, status="sending").count() == 4,
        timeout=30,
        message="the batch claimed",
    )
    release = threading.Event()
    holder = row_held("notifications_notification", Notification.objects.get(order=held).pk, release)
    try:
        others = [order for order in orders if order.id != held.id]
        wait_until(
            lambda: (
                Notification.objects.filter(order__in=others, status="sent").count() == 3
                or queue_ready_count(f"{QUEUE}.dlq") > 0
            ),
            timeout=40,
            message="the three other emails recorded, or dead letters",
        )
        letters = {_address_of(letter): letter["headers"][REASON_HEADER] for letter in _dead_letters()}
        assert not letters, f"accepted emails dead-lettered because one row was held: {letters}"
    finally:
        release.set()
        holder.join(timeout=10)
    _sent(orders)
    assert queue_ready_count(f"{QUEUE}.dlq") == 0
    assert len(mailsim.messages()) == 4


def test_a_deeply_nested_body_leaves_its_dead_letter_queue_readable(mailsim, start_worker):
    """A task message whose body nests deeper than Python's JSON parser goes (RecursionError,
    no DecodeError) is dead-lettered by the worker's consumer with its reason, byte for byte.
    The dead-letter reader then parses every body for its envelope (`envelope_of`), which
    catches ValueError, TypeError, IndexError and KeyError but not RecursionError: listing,
    showing or replaying that dead-letter queue raises, and the message goes back to the
    head of the queue at once, so no dead letter of that queue can be replayed any more."""
    from django.core.management import call_command

    wait_until(lambda: queue_ready_count(QUEUE) == 0, timeout=20, message="an empty queue")
    envelope = _envelope_of_a_new_order("behind-the-deep-one")
    depth = 100_000
    made, _, _, _ = app.amqp.create_task_message(str(uuid.uuid4()), HANDLE_EVENT, [envelope], {})
    order_created_publish(("[" * depth + "]" * depth).encode(), headers=made)
    _publish(envelope, headers={"task": "notifications.no_such_task"})
    good = _orders_queued(["after-the-deep-one"], already=2)
    start_worker(concurrency=1)
    _sent(good)
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") == 2, timeout=30, message="two dead letters")
    from io import StringIO

    out = StringIO()
    call_command("replay_dead_letters", "list", stdout=out)
    listing = out.getvalue()
    assert "2 dead letter(s)." in listing, listing
    assert "unknown_task" in listing or "no_such_task" in listing, listing


class _FreezableProxy(TcpProxy):
    """A proxy whose connections can each stop passing bytes either way while they stay open:
    a peer that vanished without a reset (a broker host that died, a firewall or NAT that
    dropped an idle flow)."""

    def __init__(self, target_host: str, target_port: int):
        self.gates: list[threading.Event] = []
        super().__init__(target_host, target_port)

    def freeze_from(self, index: int) -> None:
        for gate in self.gates[index:]:
            gate.clear()

    def close(self) -> None:
        for gate in self.gates:
            gate.set()
        super().close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            gate = threading.Event()
            gate.set()
            self.gates.append(gate)
            self._sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, gate), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, gate), daemon=True).start()


def test_a_fetch_connection_that_went_silent_does_not_hang_the_task_until_its_hard_limit(
    broker, mailsim, start_worker
):
    """`companions_take` promises "if the broker cannot be asked, the task runs alone". Its
    per-process connection has no heartbeat and no read timeout, and sits idle between
    tasks. When its peer goes silent without a reset (a broker host that died, a firewall or
    NAT that dropped the idle flow), the next email's `basic.get` waits until the soft time
    limit; the handler of SoftTimeLimitExceeded then closes that connection
    (`_fetch_connection_drop`), whose close handshake waits on the same silent peer, until
    the hard time limit SIGKILLs the pool process and the message is redelivered: the email
    goes 75 s late (the product's clocks) instead of at once, once per pool process whose
    idle connection went silent. The worker's consumer connection stays healthy throughout."""
    real = urlsplit(broker)
    proxy = _FreezableProxy(real.hostname, real.port or 5672)
    through_proxy = real._replace(netloc=f"{real.username}:{real.password}@127.0.0.1:{proxy.port}").geturl()
    try:
        worker = start_worker(concurrency=1, CELERY_BROKER_URL=through_proxy, **SHORT_CLOCKS)
        ready = len(proxy.gates)  # the consumer's (and the main process's other) connections
        first = [_order("before-the-silence")]
        _sent(first)  # the pool process opened its fetch connection, and it now sits idle
        assert len(proxy.gates) > ready, "the pool process opened a connection of its own"
        proxy.freeze_from(ready)
        second = [_order("after-the-silence")]
        wait_until(
            lambda: (
                Notification.objects.filter(order__in=second, status="sent").exists()
                or queue_ready_count(f"{QUEUE}.dlq") > 0
            ),
            timeout=40,
            message="the second email sent or dead-lettered",
        )
        letters = {_address_of(letter): letter["headers"][REASON_HEADER] for letter in _dead_letters()}
        assert not letters, f"an email was dead-lettered because its batch could not take company: {letters}"
        _sent(second)
        log = worker.log_text()
        hung = "the task hung on its fetch connection until the hard time limit killed its pool process"
        assert "Hard time limit" not in log, hung
        assert "SIGKILL" not in log, hung
    finally:
        proxy.close()
    assert len(mailsim.messages()) == 2


def _nested_table(depth: int) -> dict:
    table: dict = {}
    inner = table
    for _ in range(depth):
        inner["a"] = {}
        inner = inner["a"]
    return table


def test_a_header_nested_deeper_than_the_worker_decodes_is_dead_lettered_and_the_worker_goes_on(
    mailsim, start_worker
):
    """RabbitMQ takes a message whose header is a table nested 3,000 levels deep (a producer
    that raised its own recursion limit made it). py-amqp decodes headers recursively, so the
    worker's consumer meets a RecursionError inside the connection's frame reading, before
    any of our checks (`create_task_handler`) sees the message, and the connection is left
    mid-frame: the worker stopped ("Unrecoverable error"). Now the consumer reconnects, the
    message comes back until the queue's delivery limit dead-letters it, the worker carries
    on and the good message behind it is sent; the dead-letter tools say what to do with it."""

    envelope = _envelope_of_a_new_order("deep-header")
    worker = start_worker(concurrency=1)
    deep_header_publish(envelope)
    good = [_order("after-the-deep-header")]
    wait_until(
        lambda: (
            Notification.objects.filter(order__in=good, status="sent").exists()
            or worker.process.poll() is not None
        ),
        timeout=60,
        message="the good email behind it sent, or the worker gone",
    )
    assert worker.process.poll() is None, "the worker died: " + "\n".join(
        line[:300] for line in worker.log_text().splitlines() if "Unrecoverable" in line
    )
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") == 1, timeout=30, message="one dead letter")
    with pytest.raises(CommandError, match="headers nested too deep for the AMQP client to decode"):
        call_command("replay_dead_letters", "list", stdout=StringIO())
    # The command's connection, left mid-frame, is dropped without AMQP's close handshake: the
    # broker puts the message it held back once it sees the socket closed, a moment later.
    wait_until(
        lambda: queue_ready_count(f"{QUEUE}.dlq") == 1,
        timeout=15,
        message="the dead letter back in its queue",
    )


def deep_header_publish(envelope: dict) -> None:
    """The event's task message with a header nested 3,000 levels deep: RabbitMQ takes it,
    py-amqp cannot decode it (this process raises its own recursion limit to encode it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        _publish(envelope, headers={"x-deep": _nested_table(3000)})
    finally:
        sys.setrecursionlimit(limit)
