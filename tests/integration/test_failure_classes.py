"""Each failure class with real processes: a Celery worker, RabbitMQ, the mail simulator (or
its SMTP twin). Each test shows the notification's final state, what the provider accepted
and where the message ended: acked (queues empty) or in the dead-letter queue with a reason."""

import time
from io import StringIO

import pytest
from django.core.management import call_command

from messaging.dead_lettering import CLASS_HEADER, REASON_HEADER
from messaging.models import OutboxEvent, ProcessedEvent
from messaging.relay.messages import OutgoingMessage
from messaging.relay.publisher import process_publisher
from messaging.task_names import HANDLE_EVENT
from notifications.models import Notification
from orders.models import Order
from tests.broker import delay_queues_full, queue_peek, queue_ready_count
from tests.factories import OrderFactory
from tests.integration.short_lease import SHORT_LEASE, short_lease
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

FAST_RETRIES = {"DELIVERY_MAX_RETRIES": "2", "DELIVERY_RETRY_BASE_DELAY_SECONDS": "1"}
FINAL = ("sent", "failed", "needs_review", "skipped")


def _final(order: Order, *, timeout: float = 40) -> Notification:
    return wait_until(
        lambda: Notification.objects.filter(order=order, status__in=FINAL).first(),
        timeout=timeout,
        message="a final notification state",
    )


def _outcomes(notification: Notification) -> list[str]:
    return list(notification.attempts.order_by("number").values_list("outcome", flat=True))


def _dead_letters(queue: str = "orders.confirmations.dlq") -> list[dict]:
    wait_until(lambda: queue_ready_count(queue) > 0, timeout=15, message="a dead letter")
    return queue_peek(queue)


def _republish(order: Order, copies: int = 1) -> None:
    event = OutboxEvent.objects.get(aggregate_id=str(order.id), event_type="order.created")
    message = OutgoingMessage(event.id, HANDLE_EVENT, (event.payload,), "orders.events", event.event_type)
    assert len(process_publisher().publish([message] * copies).confirmed) == copies


def test_transient_failures_are_retried_then_failed_and_dead_lettered(mailsim, start_worker):
    mailsim.set_faults({"kind": "503", "retry_after": 1})
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="down@example.com")
    notification = _final(order)
    assert (notification.status, notification.error_class) == ("failed", "retries_exhausted")
    assert _outcomes(notification) == ["transient"] * 3  # the first try and two retries
    assert "we gave up after 3 attempts" in notification.last_error.lower()
    [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "retries_exhausted"
    assert mailsim.messages() == []
    assert queue_ready_count("orders.confirmations") == 0


def test_a_permanent_rejection_fails_at_once_and_is_dead_lettered_with_the_reason(mailsim, start_worker):
    mailsim.set_faults({"kind": "reject"})
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="nobody@example.com")
    notification = _final(order)
    assert (notification.status, _outcomes(notification)) == ("failed", ["permanent"])
    [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "permanent"
    # masked: a message on the broker carries no address (tests/system/test_personal_data.py)
    assert "refused the email to n***@example.com" in dead["headers"][REASON_HEADER]
    assert mailsim.messages() == []


@pytest.mark.parametrize("batch_size", ["16", "1"], ids=["in a batch", "alone (Celery's own path)"])
def test_a_retry_the_broker_refuses_is_dead_lettered_as_such_and_a_replay_sends_it(
    mailsim, start_worker, batch_size
):
    # given: Celery's delay queues full (a length limit of 0, each holding a message), so the
    # broker refuses the retry after a 503. A delay of 61 to 72 s enters the queue of its
    # highest bit first (32 or 64 s), whose message outlives the test.
    mailsim.set_faults({"kind": "503", "times": 1})
    with delay_queues_full():
        start_worker(
            **{**FAST_RETRIES, "DELIVERY_RETRY_BASE_DELAY_SECONDS": "60", "DELIVERY_BATCH_SIZE": batch_size}
        )
        order = OrderFactory.create(customer_email="refused-retry@example.com")
        # then: the delivery is in the dead-letter queue, saying why, not called "permanent"
        [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "retry_not_published"
    reason = dead["headers"][REASON_HEADER]
    # py-amqp's nack, as kombu raised it after its own publish retries
    assert reason.startswith(
        "The broker refused or did not confirm this delivery's retry "
        "(OperationalError, caused by MessageNacked). "
    )
    assert "The failure that called for the retry: The mail provider was temporarily unavailable" in reason
    assert _outcomes(Notification.objects.get(order=order)) == ["transient"]
    assert mailsim.messages() == []
    # when the broker takes messages again, a replay sends the email once
    call_command(
        "replay_dead_letters", "replay", "--yes", "--actor", "ops", stdout=StringIO(), stderr=StringIO()
    )
    notification = _final(order)
    assert (notification.status, _outcomes(notification)) == ("sent", ["transient", "accepted"])
    assert len(mailsim.messages()) == 1
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_an_unknown_outcome_with_a_deduplicating_provider_is_resent_with_the_same_key(mailsim, start_worker):
    mailsim.set_faults({"kind": "accept_then_drop", "times": 1})
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="dropped@example.com")
    notification = _final(order)
    assert (notification.status, _outcomes(notification)) == ("sent", ["unknown", "accepted"])
    assert len(mailsim.messages()) == 1
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_an_unknown_outcome_over_smtp_is_never_resent_but_goes_to_review(smtpsim, start_worker):
    smtpsim.set_fault(kind="store_then_drop", times=1)
    start_worker(**FAST_RETRIES, **_smtp_env(smtpsim))
    order = OrderFactory.create(customer_email="smtp-drop@example.com")
    notification = _final(order)
    assert (notification.status, _outcomes(notification)) == ("needs_review", ["unknown"])
    assert "cannot tell whether it was sent" in notification.last_error
    [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "needs_review"
    assert len(smtpsim.messages()) == 1


def test_a_key_still_in_flight_at_the_provider_is_waited_for_not_counted_as_a_failure(mailsim, start_worker):
    # the first request holds its key longer than our read timeout: we see an unknown
    # outcome, then "still processing" (409) until the provider finishes it
    mailsim.set_faults({"kind": "hold", "seconds": 4, "times": 1})
    start_worker(**FAST_RETRIES, MAIL_PROVIDER_READ_TIMEOUT_SECONDS="1")
    order = OrderFactory.create(customer_email="slow@example.com")
    notification = _final(order)
    outcomes = _outcomes(notification)
    assert notification.status == "sent"
    assert outcomes[0] == "unknown"
    assert outcomes[-1] == "accepted"
    assert "in_flight" in outcomes
    assert len(mailsim.messages()) == 1


def test_the_same_key_with_different_content_is_never_resent_and_goes_to_review(mailsim, start_worker):
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="drift@example.com")
    assert _final(order).status == "sent"
    # given the stored email was altered (a bug, or a hand edit) and it is sent again under its key
    Notification.objects.filter(order=order).update(status="pending", email_text="Something else.\n")
    ProcessedEvent.objects.all().delete()
    _republish(order)
    notification = wait_until(
        lambda: Notification.objects.filter(order=order, status="needs_review").first(),
        timeout=20,
        message="review",
    )
    assert _outcomes(notification) == ["accepted", "key_conflict"]
    [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "needs_review"
    assert len(mailsim.messages()) == 1


def test_two_workers_getting_the_same_event_at_the_same_moment_send_one_email(mailsim, start_worker):
    # given two copies of one event and a slow provider, so the two handlers overlap
    mailsim.set_faults({"kind": "hold", "seconds": 2, "times": 1})
    order = OrderFactory.create(customer_email="twice@example.com")
    _republish(order, copies=1)
    assert queue_ready_count("orders.confirmations") == 2
    # when two separate worker processes take one copy each
    start_worker(concurrency=1, **FAST_RETRIES)
    start_worker(concurrency=1, **FAST_RETRIES)
    # then
    notification = _final(order)
    wait_until(lambda: queue_ready_count("orders.confirmations") == 0, timeout=20, message="both copies done")
    time.sleep(1)  # let the second copy finish its wait and look again
    assert notification.status == "sent"
    assert _outcomes(Notification.objects.get(pk=notification.pk)) == ["accepted"]
    assert len(mailsim.messages()) == 1
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_a_worker_killed_after_the_provider_accepted_and_before_the_commit_sends_once(mailsim, start_worker):
    # given the provider stores the email and then keeps the worker waiting for its answer
    mailsim.set_faults({"kind": "stall", "seconds": 30, "times": 1})
    worker = start_worker(**FAST_RETRIES, **SHORT_LEASE)  # its lease is waited out
    order = OrderFactory.create(customer_email="killed@example.com")
    wait_until(mailsim.messages, timeout=15, message="the provider accepted the email")
    # when the worker dies right there (SIGKILL, the whole process group)
    worker.kill()
    assert Notification.objects.get(order=order).status == "sending"
    # and a fresh worker gets the redelivered message, and takes it over once the lease ran out
    start_worker(**FAST_RETRIES, **SHORT_LEASE)
    # then
    notification = _final(order)
    assert (notification.status, _outcomes(notification)) == ("sent", ["unknown", "accepted"])
    [message] = mailsim.messages()
    assert notification.provider_message_id == message["id"]
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_a_worker_killed_after_the_smtp_server_took_the_message_leaves_it_for_review(smtpsim, start_worker):
    smtpsim.set_fault(kind="stall", seconds=30, times=1)
    env = _smtp_env(smtpsim) | short_lease(read_timeout=5)  # a 9 s lease, waited out after the kill
    worker = start_worker(**FAST_RETRIES, **env)
    order = OrderFactory.create(customer_email="killed-smtp@example.com")
    wait_until(smtpsim.messages, timeout=15, message="the SMTP server took the message")
    worker.kill()
    start_worker(**FAST_RETRIES, **env)
    notification = _final(order)
    assert (notification.status, _outcomes(notification)) == ("needs_review", ["unknown"])
    assert "A worker stopped while it was handing this email" in notification.last_error
    assert len(smtpsim.messages()) == 1
    [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "needs_review"


def _smtp_env(smtpsim) -> dict[str, str]:
    return {
        "MAIL_PROVIDER": "smtp",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtpsim.port),
        "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": "5",
    }
