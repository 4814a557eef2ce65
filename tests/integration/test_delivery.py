"""The handler's decisions, called directly (no worker), against the real simulator."""

import uuid
from datetime import timedelta

import pytest
from celery.exceptions import Reject
from django.utils import timezone

from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import InFlightError, NeedsReviewError, PermanentError, TransientError
from messaging.models import OutboxEvent, ProcessedEvent
from messaging.registry import event_type_get
from messaging.tasks import handle_event
from notifications.content.snapshot import snapshot_outbound
from notifications.models import Notification
from notifications.providers.catalogue import mail_provider
from orders.events import ORDER_CREATED
from orders.models import Order
from tests.factories import DeliveryAttemptFactory, NotificationFactory, confirmation_claimed

pytestmark = pytest.mark.django_db

FIRST_DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
LAST_DELIVERY = Delivery(worker="test pid 1", retries=8, max_retries=8)


def _envelope(order: Order) -> dict:
    return OutboxEvent.objects.get(aggregate_id=str(order.id)).payload


def _notification(order: Order) -> Notification:
    return Notification.objects.get(order=order)


def test_a_first_delivery_sends_once_and_records_the_attempt_and_the_inbox_row(order, mailsim):
    # when
    result = event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # then
    assert result == "sent"
    notification = _notification(order)
    [message] = mailsim.messages()
    assert notification.status == "sent"
    assert notification.provider_message_id == message["id"]
    assert message["idempotency_key"] == notification.idempotency_key
    assert message["event_id"] == _envelope(order)["event_id"]
    [attempt] = notification.attempts.all()
    assert (attempt.outcome, attempt.http_status, attempt.number) == ("accepted", 200, 1)
    assert attempt.finished_at is not None
    assert ProcessedEvent.objects.filter(event_id=_envelope(order)["event_id"], result="sent").count() == 1


def test_a_second_delivery_of_a_processed_event_changes_nothing(order, mailsim):
    event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # when
    result = event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # then
    assert result == "duplicate"
    assert len(mailsim.messages()) == 1
    assert _notification(order).attempt_count == 1


def test_another_event_for_an_already_sent_notification_is_recorded_and_not_sent(order, mailsim):
    event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    other_event = {**_envelope(order), "event_id": str(uuid.uuid4())}
    # when
    result = event_dispatch(raw_envelope=other_event, delivery=FIRST_DELIVERY)
    # then
    assert result == "already sent"
    assert len(mailsim.messages()) == 1
    assert ProcessedEvent.objects.filter(event_id=other_event["event_id"]).exists()


def test_a_live_lease_of_another_worker_makes_the_delivery_wait_without_calling_the_provider(order, mailsim):
    NotificationFactory.create(order=order, leased=True)  # by other-host:4242, for another 30 s
    with pytest.raises(InFlightError):
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    assert mailsim.requests_log() == []
    assert _notification(order).status == "sending"


def test_an_attempt_that_never_finished_is_unknown_and_resent_with_the_same_key_inside_the_window(
    order, mailsim
):
    # given a worker that died after the provider accepted the email, before recording it
    crashed_at = timezone.now() - timedelta(minutes=2)
    notification = NotificationFactory.create(
        order=order,
        leased=True,
        lease_owner="gone-host:1",
        lease_expires_at=crashed_at + timedelta(seconds=60),
    )
    DeliveryAttemptFactory.create(notification=notification, started_at=crashed_at)  # it never finished
    notification.refresh_from_db()
    first = mail_provider().send(snapshot_outbound(notification, to=order.customer_email, event_id="e"))
    assert first.outcome == "accepted"
    # when the message is redelivered
    result = event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # then
    assert result == "sent"
    outcomes = list(notification.attempts.order_by("number").values_list("outcome", flat=True))
    assert outcomes == ["unknown", "accepted"]
    [message] = mailsim.messages()
    assert _notification(order).provider_message_id == message["id"] == first.provider_message_id


def test_an_unfinished_attempt_outside_the_providers_window_goes_to_review_and_is_not_resent(order, mailsim):
    long_ago = timezone.now() - timedelta(days=2)
    notification = NotificationFactory.create(
        order=order, leased=True, lease_owner="gone-host:1", lease_expires_at=long_ago
    )
    DeliveryAttemptFactory.create(notification=notification, started_at=long_ago)  # it never finished
    # when
    with pytest.raises(NeedsReviewError):
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # then
    notification.refresh_from_db()
    assert notification.status == "needs_review"
    assert "cannot tell whether it was sent" in notification.last_error
    assert mailsim.requests_log() == []


def test_a_live_lease_is_respected_even_when_its_pid_is_not_in_this_hosts_process_table(order, mailsim):
    # given a lease whose holder's name is this host's and whose pid no process here has: on
    # another host (or container) with the same name it may be calling the provider right now
    import socket

    notification = NotificationFactory.create(
        order=order, leased=True, lease_owner=f"{socket.gethostname()}:999999"
    )  # no such pid here
    DeliveryAttemptFactory.create(notification=notification, started_at=timezone.now())  # its call, running
    # when another worker gets the event: it waits for the lease, it sends nothing
    with pytest.raises(InFlightError):
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    assert _notification(order).status == "sending"
    assert mailsim.requests_log() == []
    # when the lease has run out: the email is taken over and resent under its key, once
    Notification.objects.filter(pk=notification.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY) == "sent"
    assert len(mailsim.messages()) == 1


def test_a_rejected_address_fails_at_once_with_a_reason_in_plain_words(order, mailsim):
    mailsim.set_faults({"kind": "reject"})
    with pytest.raises(PermanentError):
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    notification = _notification(order)
    assert notification.status == "failed"
    assert notification.last_error.startswith("The mail provider refused the email to ada@example.com")
    assert "422" in notification.last_error_detail
    assert not ProcessedEvent.objects.exists()  # a replay after a fix is processed


def test_a_transient_failure_is_retried_and_on_the_last_attempt_the_notification_fails(order, mailsim):
    mailsim.set_faults({"kind": "503", "retry_after": 7})
    with pytest.raises(TransientError) as transient:
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    assert transient.value.retry_after == 7
    assert _notification(order).status == "pending"
    # when the retries are used up
    with pytest.raises(PermanentError, match="gave up after 2 attempts"):
        event_dispatch(raw_envelope=_envelope(order), delivery=LAST_DELIVERY)
    assert _notification(order).status == "failed"
    assert mailsim.messages() == []


def test_a_resend_sends_the_stored_email_even_if_the_order_changed_since(order, mailsim):
    event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # given the order's amount changed after the email was rendered, and it is sent again
    Order.objects.filter(pk=order.pk).update(amount="1.00")
    Notification.objects.filter(order=order).update(status="pending")
    ProcessedEvent.objects.all().delete()
    # when
    assert event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY) == "sent"
    # then the provider saw the same body under the same key, and replayed its answer
    first, second = mailsim.requests_log()
    assert first["fingerprint"] == second["fingerprint"]
    assert second["outcome"] == "replayed"
    assert len(mailsim.messages()) == 1


def test_the_same_key_with_different_content_is_a_conflict_for_review(order, mailsim):
    event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # given the stored email was altered (a bug, or a hand edit) and the notification is sent again
    Notification.objects.filter(order=order).update(status="pending", email_text="Something else.\n")
    ProcessedEvent.objects.all().delete()
    # when
    with pytest.raises(NeedsReviewError):
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # then
    assert _notification(order).status == "needs_review"
    assert len(mailsim.messages()) == 1


def test_an_event_for_an_order_that_does_not_exist_is_permanent(order):
    envelope = {**_envelope(order), "order_id": str(uuid.uuid4())}
    with pytest.raises(PermanentError, match="does not exist"):
        event_dispatch(raw_envelope=envelope, delivery=FIRST_DELIVERY)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda e: "not a dict", "not an event envelope"),
        (lambda e: {k: v for k, v in e.items() if k != "order_id"}, "lacks the field"),
        (lambda e: {**e, "customer_email": "x@example.com"}, "unknown field"),
        (lambda e: {**e, "event_type": "order.teleported"}, "is unknown"),
        (lambda e: {**e, "schema_version": 99}, "Schema version 99"),
        (lambda e: {**e, "event_id": "not-a-uuid"}, "malformed"),
        (lambda e: {**e, "event_type": ["order.created"]}, "is unknown"),
        (lambda e: {**e, "schema_version": True}, "Schema version True"),
        (lambda e: {**e, "occurred_at": 12}, "malformed"),
    ],
)
def test_a_malformed_envelope_is_rejected_to_the_dead_letter_queue_with_its_reason(order, change, reason):
    with pytest.raises(Reject) as rejected:
        handle_event(change(_envelope(order)))
    # Celery's Reject keeps both as attributes; celery-types omits them (as in messaging/tasks.py)
    assert rejected.value.requeue is False  # type: ignore[attr-defined]
    assert reason in str(rejected.value.reason)  # type: ignore[attr-defined]


def test_a_later_delivery_after_an_unknown_outcome_outside_the_window_goes_to_review(order, mailsim):
    # given an attempt two days ago whose outcome nobody knows, and a replayed event today
    DeliveryAttemptFactory.create(
        notification=_notification(order), outcome="unknown", started_at=timezone.now() - timedelta(days=2)
    )
    # when
    with pytest.raises(NeedsReviewError):
        event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    # then
    assert _notification(order).status == "needs_review"
    assert "may have reached the customer" in _notification(order).last_error
    assert mailsim.requests_log() == []


def test_giving_up_after_an_earlier_unknown_outcome_asks_for_review_instead_of_failing(order, mailsim):
    DeliveryAttemptFactory.create(
        notification=_notification(order), outcome="unknown", started_at=timezone.now() - timedelta(minutes=3)
    )
    mailsim.set_faults({"kind": "503"})
    with pytest.raises(NeedsReviewError, match="gave up"):
        event_dispatch(raw_envelope=_envelope(order), delivery=LAST_DELIVERY)
    assert _notification(order).status == "needs_review"


def test_giving_up_after_transient_failures_only_fails_with_its_own_class(order, mailsim):
    mailsim.set_faults({"kind": "503"})
    with pytest.raises(PermanentError):
        event_dispatch(raw_envelope=_envelope(order), delivery=LAST_DELIVERY)
    notification = _notification(order)
    assert (notification.status, notification.error_class) == ("failed", "retries_exhausted")


def test_the_provider_still_processing_our_key_is_never_a_final_failure(order, mailsim, settings):
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 0.5
    mail_provider.cache_clear()
    try:
        mailsim.set_faults({"kind": "hold", "seconds": 2, "times": 1})
        with pytest.raises(TransientError):  # the first call times out while the key is held
            event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
        # when the last allowed delivery finds the provider still working on the key
        with pytest.raises(InFlightError):
            event_dispatch(raw_envelope=_envelope(order), delivery=LAST_DELIVERY)
        # then
        assert _notification(order).status == "pending"
    finally:
        mail_provider.cache_clear()


def test_an_attempt_whose_lease_was_taken_over_leaves_the_new_holders_state_alone(order, mailsim):
    from notifications.delivery.outcomes import OutcomeToRecord, notification_record_outcomes
    from notifications.providers.base import Outcome, SendResult

    claim = confirmation_claimed(order)
    Notification.objects.filter(order=order).update(lease_owner="other-host:7")  # taken over
    # when our (slow) attempt comes back with a transient failure
    outcome = OutcomeToRecord(
        claim=claim,
        result=SendResult(Outcome.TRANSIENT, http_status=503),
        event_type=event_type_get(ORDER_CREATED),
        duration_ms=5,
        final_attempt=False,
    )
    [recorded] = notification_record_outcomes([outcome], provider=mail_provider())
    assert isinstance(recorded, InFlightError), recorded
    # then
    notification = _notification(order)
    assert (notification.status, notification.lease_owner) == ("sending", "other-host:7")
    assert notification.attempts.get(number=1).outcome == "transient"


def test_a_provider_call_interrupted_by_the_soft_time_limit_is_recorded_as_unknown(order, mailsim):
    import signal

    from celery.exceptions import SoftTimeLimitExceeded

    def soft_time_limit(signum, frame):  # what Celery's pool does in the child at the soft limit
        raise SoftTimeLimitExceeded()

    mailsim.set_faults({"kind": "stall", "seconds": 3, "times": 1})
    previous = signal.signal(signal.SIGALRM, soft_time_limit)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(TransientError):  # unknown, the provider dedupes: retry with the key
            event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    notification = _notification(order)
    assert notification.status == "pending"
    [attempt] = notification.attempts.all()
    assert attempt.outcome == "unknown"
    assert "interrupted" in attempt.error
    # and the retry finds the stored email under the same key: still one email
    assert event_dispatch(raw_envelope=_envelope(order), delivery=FIRST_DELIVERY) == "sent"
    assert len(mailsim.messages()) == 1


def test_a_rendering_failure_is_explained_as_our_bug_not_the_providers():
    from notifications.delivery.calls import RENDER_ERROR
    from notifications.delivery.reasons import reason_for_result
    from notifications.providers.base import Outcome, SendResult

    reason = reason_for_result(
        SendResult(Outcome.PERMANENT, error_code=RENDER_ERROR, detail="KeyError('amount')"),
        to="ada@example.com",
    )
    assert reason == (
        "The email could not be rendered (a bug in its template, nothing was sent): KeyError('amount')"
    )
