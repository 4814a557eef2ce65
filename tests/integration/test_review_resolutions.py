"""A reviewer finishes every email the pipeline leaves to a person, with real processes: a
Celery worker, RabbitMQ, the mail simulator (or its SMTP twin). The three dead ends where a
retry under the same key only comes back to review (an unknown outcome over SMTP, a key
conflict, an unknown outcome older than the provider's key window) each end `sent` or
`rejected` as the reviewer chose, with the audit row; a mistyped address is corrected and
sent; a pending email is rejected; a retry works after retention removed the outbox row."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from messaging.models import OutboxEvent, ProcessedEvent
from notifications.models import AddressCorrection, Notification, OperatorAction, RetiredKey
from notifications.providers.catalogue import mail_provider
from notifications.services import notification_idempotency_key
from operations.review.resolve import notification_mark_sent, notification_send_again
from operations.review.services import ReviewRefused, notification_reject, notification_retry
from tests.broker import queue_properties
from tests.factories import DeliveryAttemptFactory, NotificationFactory, OrderFactory, UnpublishedOrderFactory
from tests.integration.test_failure_classes import (
    FAST_RETRIES,
    _dead_letters,
    _final,
    _outcomes,
    _republish,
    _smtp_env,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _status_becomes(notification: Notification, status: str, timeout: float = 30) -> Notification:
    return wait_until(
        lambda: Notification.objects.filter(pk=notification.pk, status=status).first(),
        timeout=timeout,
        message=f"the notification {status}",
    )


def _resolve(notification: Notification, *args: str) -> str:
    out = StringIO()
    call_command("notification_resolve", str(notification.pk), "--actor", "rita", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def smtp_provider(settings, smtpsim):
    """This process judges retries as the workers do: by the SMTP provider's capabilities."""
    settings.MAIL_PROVIDER = "smtp"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", smtpsim.port
    mail_provider.cache_clear()
    yield smtpsim
    mail_provider.cache_clear()


# --- an unknown outcome over SMTP ----------------------------------------------------------


def test_smtp_unknown_outcome_a_retry_is_refused_and_sending_again_under_a_new_key_sends_it(
    smtp_provider, start_worker
):
    smtp_provider.set_fault(kind="store_then_drop", times=1)
    start_worker(**FAST_RETRIES, **_smtp_env(smtp_provider))
    order = OrderFactory.create(customer_email="smtp-unknown@example.com")
    notification = _final(order)
    assert notification.status == "needs_review"
    old_key = notification.idempotency_key
    # a retry under the same key would stop at review again: refused, saying what else to do
    with pytest.raises(CommandError, match=r"keeps no idempotency keys.*mark it sent, or send it again"):
        _resolve(notification, "retry")
    # and so would a replay of its dead letter, even with --include-needs-review; the worker
    # records the review before it rejects the message, so the dead letter lands a moment later
    assert len(_dead_letters()) == 1
    out = StringIO()
    call_command("replay_dead_letters", "replay", "--include-needs-review", "--dry-run", stdout=out)
    assert "would skip" in out.getvalue()
    assert "keeps no idempotency keys" in out.getvalue()
    # sending again needs the reviewer to accept the risk of a second email, in so many words
    with pytest.raises(CommandError, match="may get this email twice"):
        _resolve(notification, "send-again", "--comment", "customer says nothing arrived")
    # when
    said = _resolve(
        notification, "send-again", "--comment", "customer says nothing arrived", "--accept-second-email-risk"
    )
    # then
    assert "sent again" in said
    notification = _status_becomes(notification, "sent")
    assert _outcomes(notification) == ["unknown", "accepted"]
    new_key = notification_idempotency_key(order_id=order.id, kind=notification.kind, version=2)
    assert (notification.key_version, notification.idempotency_key) == (2, new_key)
    assert [m["idempotency_key"] for m in smtp_provider.messages()] == [old_key, new_key]
    retired = RetiredKey.objects.get(notification=notification)
    assert (retired.key, retired.version, retired.first_attempt) == (old_key, 1, 1)
    action = OperatorAction.objects.get(action="resend_new_key")
    assert (action.actor_name, action.comment, action.notification_id) == (
        "rita",
        "customer says nothing arrived",
        notification.pk,
    )
    assert action.finished_at is not None
    assert new_key in action.result
    assert retired.action == action
    # the send went through a new event of the email's type, recorded with the decision
    events = OutboxEvent.objects.filter(aggregate_id=str(order.id)).order_by("created_at")
    assert [e.event_type for e in events] == ["order.created", "order.created"]
    assert action.event_id == events[1].id


def test_smtp_unknown_outcome_marked_sent_by_a_reviewer_who_checked_at_the_provider(
    smtp_provider, start_worker
):
    smtp_provider.set_fault(kind="store_then_drop", times=1)
    start_worker(**FAST_RETRIES, **_smtp_env(smtp_provider))
    notification = _final(OrderFactory.create(customer_email="smtp-checked@example.com"))
    assert notification.status == "needs_review"
    with pytest.raises(CommandError, match="needs the evidence"):
        _resolve(notification, "mark-sent", "--evidence", "ok")
    # when
    _resolve(
        notification, "mark-sent", "--evidence", "Relay log shows 250 OK queued as 4F2A for this address"
    )
    # then
    notification.refresh_from_db()
    assert (notification.status, notification.sent_at is not None) == ("sent", True)
    assert notification.reviewer_comment.startswith("Relay log shows 250 OK")
    action = OperatorAction.objects.get(action="mark_sent")
    assert (action.actor_name, action.result) == ("rita", "marked sent")
    assert len(smtp_provider.messages()) == 1  # nothing more was sent
    # and late redeliveries of its event send nothing: the first finds it sent and records
    # the event as processed, the second is a duplicate
    _republish(notification.order, copies=2)
    event = OutboxEvent.objects.get(aggregate_id=str(notification.order_id))
    wait_until(
        lambda: ProcessedEvent.objects.filter(event_id=event.id, result="sent").exists(),
        timeout=20,
        message="the redelivery handled",
    )
    wait_until(lambda: _queue_empty("orders.confirmations"), timeout=20, message="both copies handled")
    assert Notification.objects.get(pk=notification.pk).status == "sent"
    assert len(smtp_provider.messages()) == 1


# --- a key conflict ---------------------------------------------------------------------------


def test_key_conflict_a_retry_is_refused_and_sending_again_under_a_new_key_sends_it(mailsim, start_worker):
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="conflict@example.com")
    assert _final(order).status == "sent"
    Notification.objects.filter(order=order).update(status="pending", email_text="Something else.\n")
    ProcessedEvent.objects.all().delete()
    _republish(order)
    notification = _status_becomes(Notification.objects.get(order=order), "needs_review")
    assert _outcomes(notification) == ["accepted", "key_conflict"]
    with pytest.raises(ReviewRefused, match="refused the key"):
        notification_retry(notification=notification, actor=None, actor_name="rita")
    # when
    notification_send_again(
        notification_id=notification.pk,
        actor=None,
        actor_name="rita",
        comment="the stored text was edited by hand; send the corrected one",
        accept_second_email_risk=True,
    )
    # then
    notification = _status_becomes(notification, "sent")
    assert _outcomes(notification) == ["accepted", "key_conflict", "accepted"]
    keys = [message["idempotency_key"] for message in mailsim.messages()]
    assert keys == [
        notification_idempotency_key(order_id=order.id, kind=notification.kind),
        notification.idempotency_key,
    ]
    assert OperatorAction.objects.filter(action="resend_new_key", actor_name="rita").count() == 1
    retry = OperatorAction.objects.get(action="retry")
    assert retry.result.startswith("refused: The provider refused the key")


# --- an unknown outcome older than the provider's window ----------------------------------------


def _unknown_two_days_ago() -> Notification:
    notification = NotificationFactory.create(order__customer_email="window@example.com", needs_review=True)
    DeliveryAttemptFactory.create(
        notification=notification,
        outcome="unknown",
        started_at=timezone.now() - timedelta(days=2),
        error="the connection broke after the request was sent",
    )
    return Notification.objects.get(pk=notification.pk)


def test_past_the_key_window_a_retry_is_refused_and_the_reviewer_rejects_it(mailsim):
    notification = _unknown_two_days_ago()
    with pytest.raises(CommandError, match=r"longer ago than resend remembers keys \(1 day"):
        _resolve(notification, "retry")
    # when
    _resolve(notification, "reject", "--comment", "customer already confirmed by phone")
    # then
    notification.refresh_from_db()
    assert (notification.status, notification.reviewer_comment) == (
        "rejected",
        "customer already confirmed by phone",
    )
    assert OperatorAction.objects.get(action="reject").actor_name == "rita"
    assert OperatorAction.objects.get(action="retry").result.startswith("refused: An earlier attempt")


def test_past_the_key_window_sending_again_under_a_new_key_sends_it(mailsim, start_worker):
    notification = _unknown_two_days_ago()
    start_worker(**FAST_RETRIES)
    # when
    notification_send_again(
        notification_id=notification.pk,
        actor=None,
        actor_name="rita",
        comment="provider log has nothing for this key",
        accept_second_email_risk=True,
    )
    # then: the old unknown attempt no longer counts, the window runs from the new key's first attempt
    notification = _status_becomes(notification, "sent")
    assert _outcomes(notification) == ["unknown", "accepted"]
    assert notification.key_first_attempt == 2
    assert notification.first_attempt_at is not None
    assert notification.first_attempt_at > timezone.now() - timedelta(minutes=5)
    [message] = mailsim.messages()
    assert message["idempotency_key"] == notification.idempotency_key


# --- a mistyped address ---------------------------------------------------------------------------


def test_a_refused_address_is_corrected_and_sent_to_the_new_address(mailsim, start_worker):
    mailsim.set_faults({"kind": "reject", "times": 1})
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="ada@exmaple.com")
    notification = _final(order)
    assert notification.status == "failed"
    with pytest.raises(CommandError, match="is not an email address"):
        _resolve(notification, "correct-address", "ada-at-example.com", "--comment", "typo")
    with pytest.raises(CommandError, match="already has"):
        _resolve(notification, "correct-address", "ADA@exmaple.com", "--comment", "typo")
    # when
    _resolve(notification, "correct-address", "ada@example.com", "--comment", "typo, confirmed by phone")
    # then
    notification = _status_becomes(notification, "sent")
    order.refresh_from_db()
    assert (order.customer_email, order.version) == ("ada@example.com", 2)
    [message] = mailsim.messages()
    assert message["to"] == ["ada@example.com"]
    correction = AddressCorrection.objects.get(order=order)
    assert (correction.previous_address, correction.new_address) == ("ada@exmaple.com", "ada@example.com")
    assert (correction.action.action, correction.action.actor_name) == ("correct_address", "rita")
    assert notification.key_version == 2  # the old key would have replayed the refused send


# --- rejecting a pending email, retrying after retention ------------------------------------------


def test_a_pending_email_is_rejected_and_its_event_then_sends_nothing(mailsim, start_worker):
    order = UnpublishedOrderFactory.create(customer_email="pending@example.com")
    notification = Notification.objects.get(order=order)
    assert notification.status == "pending"
    # when
    notification_reject(
        notification=notification, actor=None, actor_name="rita", comment="test order, do not send"
    )
    _republish(order)
    worker = start_worker(**FAST_RETRIES)
    # then
    worker.wait_for_log(rf"notification {notification.pk} is rejected, nothing sent", timeout=20)
    notification.refresh_from_db()
    assert (notification.status, notification.reviewer_comment) == ("rejected", "test order, do not send")
    assert OperatorAction.objects.get(action="reject").actor_name == "rita"
    assert mailsim.messages() == []


def test_a_sending_email_cannot_be_rejected(mailsim):
    notification = NotificationFactory.create(leased=True)
    with pytest.raises(ReviewRefused, match="only pending, failed or review cases"):
        notification_reject(notification=notification, actor=None, actor_name="rita", comment="stop it")
    with pytest.raises(ReviewRefused, match="only failed or needs-review"):
        notification_mark_sent(
            notification_id=notification.pk,
            actor=None,
            actor_name="rita",
            evidence="I looked at it carefully",
        )


def test_a_retry_after_retention_removed_the_outbox_row_records_a_new_event_and_sends(mailsim, start_worker):
    notification = NotificationFactory.create(order__customer_email="old@example.com", failed=True)
    OutboxEvent.objects.all().delete()  # retention ran
    start_worker(**FAST_RETRIES)
    # when
    _resolve(notification, "retry")
    # then
    notification = _status_becomes(notification, "sent")
    action = OperatorAction.objects.get(action="retry")
    assert "no longer held its event" in action.result
    assert action.event_id is not None
    assert OutboxEvent.objects.get(pk=action.event_id).event_type == "order.created"
    assert len(mailsim.messages()) == 1


def test_the_command_says_what_is_wrong_with_its_input(mailsim):
    with pytest.raises(CommandError, match="No notification has the id 999999"):
        call_command("notification_resolve", "999999", "mark-sent", "--evidence", "checked the provider log")
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("notification_resolve", "1", "unsend")


def _queue_empty(queue: str) -> bool:
    properties = queue_properties(queue)
    return properties.get("messages_ready", 1) == 0 and properties.get("messages_unacknowledged", 1) == 0
