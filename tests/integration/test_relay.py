"""The outbox relay against the real broker: confirms, returns, claims, the sweep."""

import threading
import time
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from celery import current_app
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from kombu import Connection

from messaging.broker.channel import amqp_channel
from messaging.broker.declare import topology_declare
from messaging.identity import current_process_name
from messaging.models import OutboxEvent
from messaging.relay import relay
from messaging.relay.messages import TRACKING_HEADER, OutgoingMessage
from messaging.relay.publisher import ConfirmingPublisher, process_publisher
from messaging.relay.relay import outbox_claim_batch, relay_outbox_sweep
from messaging.task_names import HANDLE_EVENT
from orders.events import ORDER_PAID
from orders.services import order_create
from tests.broker import broker_policy, queue_peek, queue_ready_count, queues_purge
from tests.factories import OrderFactory, UnpublishedOrderFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _orders_left_by_a_crash(count: int) -> list[OutboxEvent]:
    """Committed orders whose events are unpublished and unclaimed, as after a relay died
    between the broker's confirm and the mark (its claims have run out since)."""
    OrderFactory.create_batch(count)
    OutboxEvent.objects.update(published_at=None, next_attempt_at=timezone.now() - timedelta(seconds=1))
    queues_purge()
    return list(OutboxEvent.objects.all())


def test_the_on_commit_hook_publishes_the_event_with_the_event_id_as_task_id():
    # when
    order = order_create(customer_email="a@example.com", amount=Decimal("10.00"), currency="EUR")
    # then
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    assert event.published_at is not None
    assert event.publish_attempts == 1
    [message] = queue_peek("orders.confirmations")
    assert message["headers"]["id"] == str(event.id)
    assert message["headers"]["task"] == HANDLE_EVENT
    assert message["properties"]["message_id"] == str(event.id)
    assert message["properties"]["delivery_mode"] == 2
    assert message["body"][0] == [event.payload]
    assert "a@example.com" not in str(message)


def test_the_relays_task_message_is_the_one_celerys_send_task_writes():
    ours, celerys = uuid.uuid4(), uuid.uuid4()
    envelope = {"event_id": str(ours), "schema_version": 1, "order_id": str(uuid.uuid4())}
    # when the relay publishes an event, and Celery's own send_task the same task and arguments
    message = OutgoingMessage(ours, HANDLE_EVENT, (envelope,), "orders.events", "order.created")
    assert process_publisher().publish([message]).confirmed == [ours]
    current_app.send_task(
        HANDLE_EVENT,
        args=(envelope,),
        task_id=str(celerys),
        exchange="orders.events",
        routing_key="order.created",
        ignore_result=True,
        # send_task copies the task's own time limits into the message only when the task is
        # registered in the sending process, which depends on what the session imported first;
        # the relay names none, and the worker then applies the
        # task's own (celery/worker/request.py: `timeout=time_limit or task.time_limit`).
        time_limit=None,
        soft_time_limit=None,
    )
    # then the worker reads the same task message: the same body and headers, but for the ids,
    # the short argsrepr and who sent it
    relayed, sent = queue_peek("orders.confirmations")
    assert relayed["body"] == sent["body"]
    by_id = {"id", "root_id", "argsrepr", "origin"}
    assert {key: relayed["headers"][key] for key in by_id} == {
        "id": str(ours),
        "root_id": str(ours),
        "argsrepr": f"(order.created {ours})",
        "origin": f"relay@{current_process_name()}",
    }
    assert {key: value for key, value in relayed["headers"].items() if key not in by_id} == {
        **{key: value for key, value in sent["headers"].items() if key not in by_id},
        TRACKING_HEADER: str(ours),  # how a returned message is matched to its event
    }
    for name in ("content_type", "content_encoding", "delivery_mode"):
        assert relayed["properties"][name] == sent["properties"][name]
    assert relayed["properties"]["correlation_id"] == relayed["properties"]["message_id"] == str(ours)


def test_the_sweep_publishes_crash_leftovers_in_one_pipelined_batch():
    leftovers = _orders_left_by_a_crash(120)
    assert queue_ready_count("orders.confirmations") == 0
    # when
    report = relay_outbox_sweep(batch_size=200)
    # then
    assert report.published == 120
    assert report.failed == 0
    assert OutboxEvent.objects.filter(published_at__isnull=True).count() == 0
    assert queue_ready_count("orders.confirmations") == len(leftovers)
    # and each message carries its event's envelope, as the on-commit hook would have sent it
    payloads = {str(event.id): event.payload for event in leftovers}
    for message in queue_peek("orders.confirmations", limit=120):
        assert message["properties"]["message_id"] == message["headers"]["id"]
        assert message["body"][0] == [payloads[message["headers"]["id"]]]


def test_the_sweep_leaves_rows_under_a_live_claim_alone():
    _orders_left_by_a_crash(1)
    OutboxEvent.objects.update(next_attempt_at=timezone.now() + timedelta(seconds=30))
    # when: another process still holds its claim
    report = relay_outbox_sweep()
    # then
    assert report.published == 0
    assert OutboxEvent.objects.get().published_at is None


def test_an_unroutable_event_stays_unpublished_with_the_reason_and_a_back_off():
    # given an event type that no queue is bound to
    event = OutboxEvent.objects.create(
        event_type="order.delivered",
        aggregate_type="order",
        aggregate_id=str(uuid.uuid4()),
        payload={"event_id": "x"},
        created_at=timezone.now(),
    )
    # when
    report = relay_outbox_sweep()
    # then
    event.refresh_from_db()
    assert report.failed == 1
    assert event.published_at is None
    assert event.publish_attempts == 1
    assert "unroutable" in event.last_publish_error
    assert event.next_attempt_at is not None
    assert event.next_attempt_at > timezone.now()
    assert queue_ready_count("orders.confirmations") == 0


@pytest.fixture
def analytics_queue_renewed(broker):
    """orders.analytics deleted and declared anew afterwards: RabbitMQ 3.10 keeps a quorum queue
    that reached a length limit refusing messages after the policy is gone (rabbitmq-server#12206)."""
    yield
    with Connection(broker) as broker_connection:
        amqp_channel(broker_connection).queue_delete("orders.analytics")
    topology_declare(broker_url=broker)


@pytest.mark.usefixtures("analytics_queue_renewed")
def test_an_event_the_broker_refuses_stays_unpublished_with_the_reason_and_a_back_off():
    event = OutboxEvent.objects.create(
        event_type=ORDER_PAID,
        aggregate_type="order",
        aggregate_id=str(uuid.uuid4()),
        payload={"event_id": "x"},
        created_at=timezone.now(),
    )
    full = {"max-length": 0, "overflow": "reject-publish"}
    with broker_policy("tests-analytics-full", pattern=r"^orders\.analytics$", definition=full):
        # given its queue over its length limit (a quorum queue takes one message, then refuses)
        filler = OutgoingMessage(uuid.uuid4(), HANDLE_EVENT, ({},), "orders.events", ORDER_PAID)
        assert process_publisher().publish([filler]).confirmed == [filler.event_id]
        # when the broker nacks the event's message
        report = relay_outbox_sweep()
    # then
    event.refresh_from_db()
    assert (report.published, report.failed) == (0, 1)
    assert event.published_at is None
    assert event.last_publish_error == "the broker refused the message (nack)"
    assert event.next_attempt_at is not None
    assert event.next_attempt_at > timezone.now()


def test_two_relays_claiming_at_once_never_claim_the_same_row():
    _orders_left_by_a_crash(200)
    claimed: list[list] = []
    barrier = threading.Barrier(2)

    def claim():
        barrier.wait()
        try:
            claimed.append([event.id for event in outbox_claim_batch(limit=150)])
        finally:
            connection.close()  # each thread has its own database connection

    threads = [threading.Thread(target=claim) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first, second = claimed
    assert not set(first) & set(second)
    assert len(first) + len(second) == 200


class _Steps:
    """What the sweep did, in order, from both of its threads; a step can wait for another."""

    def __init__(self):
        self.done: list[str] = []
        self._changed = threading.Condition()

    def record(self, step: str) -> None:
        with self._changed:
            self.done.append(step)
            self._changed.notify_all()

    def wait_for(self, step: str) -> None:
        with self._changed:
            self._changed.wait_for(lambda: step in self.done, timeout=5)

    def before(self, first: str, then: str) -> bool:
        return self.done.index(first) < self.done.index(then)


def test_the_sweep_claims_the_next_batch_while_one_is_out_and_marks_it_while_the_next_goes_out(monkeypatch):
    """Each step of a batch waits (at most 5 s) for the step of its neighbour that a pipelined
    sweep runs at the same time; a sweep that ran them one after the other would time out and
    record them in the other order."""
    _orders_left_by_a_crash(6)
    steps, batch_of, claimed = _Steps(), {}, []
    claim, mark, publish = relay.outbox_claim_batch, relay.outbox_mark_published, ConfirmingPublisher.publish

    def recording_claim(**options):
        events = claim(**options)
        claimed.append(events)
        batch_of.update({event.id: len(claimed) for event in events})
        steps.record(f"claim {len(claimed)}")
        return events

    def recording_publish(publisher, messages, **options):
        batch = batch_of[messages[0].event_id]
        steps.record(f"publish {batch} starts")
        steps.wait_for(f"claim {batch + 1}")
        report = publish(publisher, messages, **options)
        steps.record(f"publish {batch} confirmed")
        return report

    def recording_mark(event_ids):
        batch = batch_of[event_ids[0]]
        if len(claimed) > batch and claimed[batch]:
            steps.wait_for(f"publish {batch + 1} starts")
        mark(event_ids)
        steps.record(f"mark {batch}")

    monkeypatch.setattr(relay, "outbox_claim_batch", recording_claim)
    monkeypatch.setattr(relay, "outbox_mark_published", recording_mark)
    monkeypatch.setattr(ConfirmingPublisher, "publish", recording_publish)
    # when
    report = relay_outbox_sweep(batch_size=2)
    # then three batches, and a fourth claim that found nothing
    assert report.published == 6
    assert [len(events) for events in claimed] == [2, 2, 2, 0]
    assert OutboxEvent.objects.filter(published_at__isnull=True).count() == 0
    for batch in (1, 2, 3):
        assert steps.before(f"claim {batch + 1}", f"publish {batch} confirmed"), steps.done
        assert steps.before(f"publish {batch} confirmed", f"mark {batch}"), steps.done
    for batch in (1, 2):
        assert steps.before(f"publish {batch + 1} starts", f"mark {batch}"), steps.done


def test_a_batch_claimed_ahead_is_given_back_unsent_when_the_confirms_before_it_ate_its_lease(
    settings, monkeypatch
):
    # given a lease of 8 s, which must cover a connect (5 s) and the confirms (2 s)
    settings.OUTBOX_CLAIM_LEASE_SECONDS, settings.OUTBOX_CONFIRM_TIMEOUT_SECONDS = 8, 2
    _orders_left_by_a_crash(4)
    publish = ConfirmingPublisher.publish

    def slow_publish(publisher, messages, **options):
        time.sleep(1.5)  # confirms this slow leave a batch claimed meanwhile 6.5 s of its lease
        return publish(publisher, messages, **options)

    monkeypatch.setattr(ConfirmingPublisher, "publish", slow_publish)
    # when
    report = relay_outbox_sweep(batch_size=2)
    # then the first batch is out; the second, claimed while the first waited, is back unsent
    assert report.published == 2
    assert queue_ready_count("orders.confirmations") == 2
    given_back = OutboxEvent.objects.filter(published_at__isnull=True, next_attempt_at__isnull=True)
    assert given_back.count() == 2
    # and the next sweep publishes it
    assert relay_outbox_sweep(batch_size=2).published == 2
    assert queue_ready_count("orders.confirmations") == 4


def test_a_sweep_out_of_time_after_a_full_batch_says_more_may_be_waiting():
    _orders_left_by_a_crash(4)
    # when a sweep's budget is over after its first batch
    report = relay_outbox_sweep(batch_size=2, time_budget_seconds=0)
    # then it says so (the relay command sweeps again at once), and the rest waits unclaimed
    assert (report.published, report.out_of_time) == (2, True)
    unclaimed = OutboxEvent.objects.filter(published_at__isnull=True, next_attempt_at__lte=timezone.now())
    assert unclaimed.count() == 2
    # and a sweep that drains the outbox does not
    report = relay_outbox_sweep(batch_size=2)
    assert (report.published, report.out_of_time) == (2, False)


@pytest.fixture
def broker_away(settings, fast_path_unpaused):
    """The broker is unreachable until the test calls the returned function."""
    reachable = settings.CELERY_BROKER_URL
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1/nowhere"  # nothing listens on port 1

    def broker_back():
        settings.CELERY_BROKER_URL = reachable

    return broker_back


def test_orders_are_accepted_while_the_broker_is_away_and_published_by_the_sweep_when_it_returns(broker_away):
    # when
    order = order_create(customer_email="a@example.com", amount=Decimal("10.00"), currency="EUR")
    second = order_create(customer_email="b@example.com", amount=Decimal("10.00"), currency="EUR")
    # then both orders committed; their events wait in the outbox with the reason
    events = OutboxEvent.objects.filter(aggregate_id__in=[str(order.id), str(second.id)])
    assert [event.published_at for event in events] == [None, None]
    first_event = events.get(aggregate_id=str(order.id))
    assert first_event.last_publish_error.startswith("broker unreachable")
    assert "left to the sweep" in events.get(aggregate_id=str(second.id)).last_publish_error
    assert relay_outbox_sweep().published == 0  # still away: nothing lost, nothing marked
    # when the broker is back (and the back-off has passed)
    broker_away()
    OutboxEvent.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    report = relay_outbox_sweep()
    # then
    assert report.published == 2
    assert OutboxEvent.objects.filter(published_at__isnull=True).count() == 0
    assert queue_ready_count("orders.confirmations") == 2


def test_a_lost_confirm_leaves_the_event_unpublished_and_the_sweep_publishes_it_again(
    settings, fast_path_unpaused
):
    from urllib.parse import urlsplit

    from tests.integration.tcp_proxy import TcpProxy

    # given a network between us and the broker that holds back the broker's replies
    real = urlsplit(settings.CELERY_BROKER_URL)
    proxy = TcpProxy(real.hostname, real.port or 5672)
    settings.CELERY_BROKER_URL = real._replace(
        netloc=f"{real.username}:{real.password}@127.0.0.1:{proxy.port}"
    ).geturl()
    try:
        order_create(customer_email="first@example.com", amount=Decimal("10.00"), currency="EUR")  # connects
        queues_purge()
        proxy.hold_replies()
        # when an order is placed: its message reaches the broker, the confirm does not
        order = order_create(customer_email="a@example.com", amount=Decimal("10.00"), currency="EUR")
        event = OutboxEvent.objects.get(aggregate_id=str(order.id))
        assert event.published_at is None
        assert "no confirm from the broker" in event.last_publish_error
        # then, once the network heals, the sweep publishes it again
        proxy.release_replies()
        OutboxEvent.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
        assert relay_outbox_sweep().published == 1
    finally:
        proxy.close()
        settings.CELERY_BROKER_URL = real.geturl()
    event.refresh_from_db()
    assert event.published_at is not None
    # the broker holds both copies; the consumer's inbox makes them one email
    copies = queue_peek("orders.confirmations")
    assert [copy["headers"]["id"] for copy in copies] == [str(event.id)] * 2


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


def test_the_mark_alone_skips_its_flush_wait_and_a_callers_transaction_keeps_its_own():
    first, second = (
        OutboxEvent.objects.get(aggregate_id=str(UnpublishedOrderFactory.create().id)).id for _ in range(2)
    )
    # alone: the statement turns the flush wait off for its own transaction only
    with CaptureQueriesContext(connection) as captured:
        relay.outbox_mark_published([first])
    assert "set_config('synchronous_commit', 'off', true)" in captured.captured_queries[-1]["sql"]
    assert OutboxEvent.objects.get(id=first).published_at is not None
    assert _synchronous_commit() == "on"  # nothing leaked into the session
    # inside a caller's transaction the caller's commit still waits for its flush
    with transaction.atomic():
        relay.outbox_mark_published([second])
        assert _synchronous_commit() == "on"
    assert OutboxEvent.objects.get(id=second).published_at is not None
