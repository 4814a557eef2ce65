"""A provider's event acts on the send it is about, not on the email as it is now.

A reviewer corrected a mistyped address and sent the email again under a new key; the
provider's late hard bounce for the first send (under the retired key) then suppresses the
mistyped address only, leaves the resend's status and delivery state alone, and shows in the
email's history. Evidence settles only unknown outcomes under the current key. The decisions
run through the event dispatcher as a worker runs it; the last test has a real worker apply
the event off its queue and send the resend afterwards."""

import importlib
import uuid
from datetime import UTC, datetime

import pytest
from django.apps import apps

from notifications.models import DeliveryAttempt, Notification, OperatorAction, ProviderEvent, Suppression
from notifications.tracking.intake import provider_event_store
from notifications.tracking.normalised import TrackingEvent
from operations.mail_provider.pause import provider_pause, provider_resume
from operations.review.resolve import notification_send_again
from tests.factories import (
    DeliveryAttemptFactory,
    NotificationFactory,
    UnpublishedOrderFactory,
    confirmation_claimed,
    staff_user,
)
from tests.integration.test_provider_webhooks import SIGNING_KEY, _apply_all, _post, _resend_body
from tests.waiting import wait_until

MISTYPED, CORRECTED = "ada@gmial.com", "ada@gmail.com"
HARD_BOUNCE = {"type": "Permanent", "message": "550 5.1.1 no such mailbox"}


@pytest.fixture(autouse=True)
def _webhook_secret(settings):
    settings.RESEND_WEBHOOK_SECRET = SIGNING_KEY


def _corrected(*, first_attempt_recipient: str = MISTYPED) -> tuple[Notification, str]:
    """An email whose first send, to a mistyped address, ended unknown; a reviewer corrected
    the address and sent it again under a new key. Returns it and its retired key. Only the
    resend's event is published (on commit: to a worker in a transactional test)."""
    order = UnpublishedOrderFactory.create(customer_email=MISTYPED)
    notification = NotificationFactory.create(order=order, needs_review=True, provider="resend")
    DeliveryAttemptFactory.create(
        notification=notification, outcome="unknown", recipient=first_attempt_recipient
    )
    retired_key = notification.idempotency_key
    notification_send_again(
        notification_id=notification.pk,
        actor=None,
        actor_name="rita",
        comment="typo in the domain, confirmed by phone",
        new_address=CORRECTED,
    )
    return Notification.objects.get(pk=notification.pk), retired_key


def _resend_attempt(notification: Notification, outcome: str) -> None:
    """An attempt of the resend, for the event the correction recorded, to the new address."""
    event_id = OperatorAction.objects.get(action="correct_address").event_id
    DeliveryAttemptFactory.create(
        notification=notification, event_id=event_id, outcome=outcome, recipient=CORRECTED
    )


def _late_bounce(notification: Notification, retired_key: str, *, to: list[str]) -> None:
    body = _resend_body(
        "email.bounced", notification, to=to, tags={"idempotency_key": retired_key}, bounce=HARD_BOUNCE
    )
    assert _post(body).json()["detail"] == "stored"


def _active_suppressions() -> list[str]:
    return list(Suppression.objects.filter(lifted_at__isnull=True).values_list("address", flat=True))


@pytest.mark.django_db
@pytest.mark.parametrize("resend", ["pending", "needs_review"])
def test_a_late_bounce_for_the_first_send_after_a_correction_changes_only_that_sends_history(resend, client):
    notification, retired_key = _corrected()  # its resend waits: nothing commits in this test
    if resend == "needs_review":  # the resend went out too, and its outcome is unknown as well
        _resend_attempt(notification, "unknown")
        Notification.objects.filter(pk=notification.pk).update(status="needs_review")
    # when the provider reports, late, that the first send bounced
    _late_bounce(notification, retired_key, to=[MISTYPED])
    [result] = _apply_all()
    # then the mistyped address is suppressed, the corrected one is not
    assert _active_suppressions() == [MISTYPED]
    # and the resend is neither settled nor marked bounced
    after = Notification.objects.get(pk=notification.pk)
    assert (after.status, after.delivery_status) == (resend, "")
    assert not OperatorAction.objects.filter(action="settle").exists()
    assert result.startswith("about the earlier send under key v1")
    assert result.endswith("the current send is unchanged; address suppressed")
    # and the event is on the email's page
    event = ProviderEvent.objects.get()
    assert event.notification_id == notification.pk
    client.force_login(staff_user("rita", reviewer=True))
    page = client.get(f"/admin/notifications/notification/{notification.pk}/change/").content.decode()
    assert "What the provider reported" in page
    assert retired_key in page
    assert "about the earlier send under key v1" in page


def _stored(notification: Notification, key: str, *, kind: str = "bounced", recipient: str = "") -> None:
    """An event as a provider posts it without naming the recipient (only our key)."""
    provider_event_store(
        TrackingEvent(
            provider="resend",
            provider_event_id=f"msg_{uuid.uuid4().hex}",
            kind=kind,
            occurred_at=datetime.now(UTC),
            provider_message_id=f"re-{uuid.uuid4()}",
            idempotency_key=key,
            recipient=recipient,
            hard_bounce=kind == "bounced",
            description="no such mailbox",
            payload={},
        )
    )


@pytest.mark.django_db
def test_without_a_recipient_in_the_event_the_address_kept_with_the_attempt_is_suppressed():
    # given a first attempt from before attempts kept their address: the correction keeps it
    notification, retired_key = _corrected(first_attempt_recipient="")
    assert DeliveryAttempt.objects.get(notification=notification).recipient == MISTYPED
    # when
    _stored(notification, retired_key)
    _apply_all()
    # then
    assert _active_suppressions() == [MISTYPED]
    assert Notification.objects.get(pk=notification.pk).status == "pending"


@pytest.mark.django_db
def test_an_event_naming_another_recipient_than_its_send_changes_nothing():
    notification = NotificationFactory.create(order__customer_email="bob@example.com", needs_review=True)
    DeliveryAttemptFactory.create(notification=notification, outcome="unknown")
    # when a bounce under the email's own key names someone we did not write to
    _stored(notification, notification.idempotency_key, recipient="carol@example.com")
    [result] = _apply_all()
    # then nobody is suppressed and the email is not settled by it, but the event is kept on it
    assert _active_suppressions() == []
    after = Notification.objects.get(pk=notification.pk)
    assert (after.status, after.delivery_status) == ("needs_review", "")
    assert result.startswith("the provider's recipient is not the address this email went to")
    assert ProviderEvent.objects.get().notification_id == notification.pk


@pytest.mark.django_db
def test_evidence_counts_only_unknown_outcomes_under_the_current_key():
    # given the first send's outcome unknown (key v1, retired), and the resend under v2 answered
    # by the provider with a temporary refusal: it waits for its retry, nothing is uncertain
    notification, _ = _corrected()
    _resend_attempt(notification, "transient")
    # when the provider reports an event under the current key
    _stored(notification, notification.idempotency_key, kind="sent", recipient=CORRECTED)
    # then the retry decides, not the old key's unknown outcome
    assert _apply_all() == ["nothing to change"]
    assert Notification.objects.get(pk=notification.pk).status == "pending"
    # and an unknown outcome under the current key is settled by the next such event
    _resend_attempt(notification, "unknown")
    _stored(notification, notification.idempotency_key, kind="sent", recipient=CORRECTED)
    assert _apply_all()[-1] == "settled: sent"
    assert Notification.objects.get(pk=notification.pk).status == "sent"


@pytest.mark.django_db
def test_every_attempt_keeps_the_address_it_was_sent_to():
    claim = confirmation_claimed(UnpublishedOrderFactory.create(customer_email="grace@example.com"))
    assert DeliveryAttempt.objects.get(pk=claim.attempt.pk).recipient == "grace@example.com"


@pytest.mark.django_db
def test_the_migration_gives_attempts_before_a_correction_the_previous_address():
    notification, _ = _corrected()
    _resend_attempt(notification, "accepted")
    DeliveryAttempt.objects.update(recipient="")  # as the column came: empty everywhere
    migration = importlib.import_module("notifications.migrations.0022_attempt_recipient_before_corrections")
    # when
    migration.recipients_before_corrections(apps, None)
    # then the attempt before the correction has the mistyped address; the one after stays
    # empty, "the order's address", which is the corrected one
    assert list(notification.attempts.order_by("number").values_list("recipient", flat=True)) == [
        MISTYPED,
        "",
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("clean_queues")
def test_a_worker_applies_the_late_bounce_off_its_queue_and_the_resend_then_reaches_the_new_address(
    mailsim, start_worker
):
    # given the provider paused (by an operator), so the corrected email's resend waits
    provider_pause(provider="resend", actor_name="olga", reason="planned maintenance")
    start_worker(MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS="1")
    notification, retired_key = _corrected()
    wait_until(
        lambda: Notification.objects.filter(
            pk=notification.pk, last_error__contains="paused by olga"
        ).exists(),
        timeout=20,
        message="the resend waiting for the pause",
    )
    # when the late bounce for the first send comes in and a worker applies it
    _late_bounce(notification, retired_key, to=[MISTYPED])
    event = wait_until(
        lambda: ProviderEvent.objects.filter(applied_at__isnull=False).first(),
        timeout=20,
        message="the event applied by the worker",
    )
    # then
    assert _active_suppressions() == [MISTYPED]
    after = Notification.objects.get(pk=notification.pk)
    assert (after.status, after.delivery_status) == ("pending", "")
    assert event.notification_id == notification.pk
    assert event.result.startswith("about the earlier send under key v1")
    # and once the provider is back, the resend goes to the corrected address, which kept it
    provider_resume(provider="resend", actor_name="olga")
    sent = wait_until(
        lambda: Notification.objects.filter(pk=notification.pk, status="sent").first(),
        timeout=30,
        message="the resend sent",
    )
    assert [message["to"] for message in mailsim.messages()] == [[CORRECTED]]
    assert sent.attempts.get(number=2).recipient == CORRECTED
