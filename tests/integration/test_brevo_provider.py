"""The Brevo adapter over real HTTP against the simulator's Brevo wire (`POST /v3/smtp/email`):
its key travels in the body's headers; a repeat of a key Brevo accepted earlier is answered
"duplicate" without the first message's id, which is never a reason to send again. And the
whole path: a dropped answer, the resend inside the window, the duplicate answer, and Brevo's
delivery event that settles it."""

import base64
import json
import time
import uuid

import pytest
from django.test import Client

from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import NeedsReviewError, TransientError
from messaging.models import OutboxEvent
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import Notification, OperatorAction
from notifications.providers.base import OutboundEmail, Outcome
from notifications.providers.brevo import BrevoProvider
from notifications.providers.catalogue import mail_provider

DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
BASIC_AUTH = "brevo:test-webhook-password"


@pytest.fixture
def brevo(mailsim, settings):
    settings.MAIL_PROVIDER = "brevo"
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 1.0
    mail_provider.cache_clear()
    yield BrevoProvider()
    mail_provider.cache_clear()


def _email(key: str = "") -> OutboundEmail:
    return OutboundEmail(
        idempotency_key=key or str(uuid.uuid4()),
        to="ada@example.com",
        subject="Hello",
        text="Body",
        event_id="e-1",
    )


def test_an_accepted_email_has_brevos_message_id_and_our_key_in_its_headers(brevo, mailsim):
    email = _email()
    result = brevo.send(email)
    assert result.outcome == Outcome.ACCEPTED
    assert result.http_status == 201
    [message] = mailsim.messages()
    assert (message["wire"], message["id"]) == ("brevo", result.provider_message_id)
    assert message["idempotency_key"] == email.idempotency_key
    # what Brevo returns on every webhook event: our key, not the address
    assert json.loads(message["headers"]["X-Mailin-custom"]) == {"idempotency_key": email.idempotency_key}


@pytest.mark.parametrize(
    ("rule", "outcome", "status"),
    [
        ({"kind": "503", "retry_after": 3}, Outcome.TRANSIENT, 503),
        ({"kind": "429", "retry_after": 2}, Outcome.TRANSIENT, 429),
        ({"kind": "reject"}, Outcome.PERMANENT, 400),
        ({"kind": "accept_then_drop"}, Outcome.UNKNOWN, None),
    ],
)
def test_each_fault_is_classified(brevo, mailsim, rule, outcome, status):
    mailsim.set_faults({**rule, "times": 1})
    result = brevo.send(_email())
    assert (result.outcome, result.http_status) == (outcome, status)
    if "retry_after" in rule:
        assert result.retry_after == rule["retry_after"]
    if outcome == Outcome.PERMANENT:
        assert result.detail  # Brevo's words, for the reviewer


def test_a_repeat_of_an_accepted_key_is_accepted_earlier_and_nothing_new_is_sent(brevo, mailsim):
    email = _email()
    first = brevo.send(email)
    # when
    second = brevo.send(email)
    # then
    assert first.outcome == Outcome.ACCEPTED
    assert (second.outcome, second.error_code, second.provider_message_id) == (
        Outcome.ACCEPTED_EARLIER,
        "duplicate_parameter",
        "",
    )
    assert len(mailsim.messages()) == 1


@pytest.mark.django_db
def test_a_dropped_answer_is_resent_once_then_waits_for_brevos_event_which_settles_it(
    brevo, mailsim, order, settings
):
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": BASIC_AUTH}
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    mailsim.set_faults({"kind": "accept_then_drop", "times": 1})
    # when: the answer is lost; the resend under the same key inside Brevo's window
    with pytest.raises(TransientError):
        event_dispatch(raw_envelope=envelope, delivery=DELIVERY)
    with pytest.raises(NeedsReviewError):
        event_dispatch(raw_envelope=envelope, delivery=DELIVERY)
    # then: accepted earlier, never sent a second time, waiting with a deadline
    notification = Notification.objects.get(order=order)
    assert notification.status == "needs_review"
    assert notification.evidence_deadline is not None
    assert [a.outcome for a in notification.attempts.all()] == ["unknown", "accepted_earlier"]
    [message] = mailsim.messages()
    # when: Brevo's delivered event (through Anymail's Brevo tracking webhook) arrives
    response = Client().post(
        "/webhooks/anymail/brevo/tracking/",
        data=json.dumps(_brevo_event(message)),
        content_type="application/json",
        headers={"Authorization": "Basic " + base64.b64encode(BASIC_AUTH.encode()).decode()},
    )
    assert response.status_code == 200
    for event in OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED):
        event_dispatch(raw_envelope=event.payload, delivery=DELIVERY)
    # then
    notification.refresh_from_db()
    assert (notification.status, notification.delivery_status) == ("sent", "delivered")
    assert notification.provider_message_id == message["id"]
    assert OperatorAction.objects.get(notification=notification).action == "settle"
    assert len(mailsim.messages()) == 1


def _brevo_event(message: dict) -> dict:
    now = time.time()
    return {
        "event": "delivered",
        "email": message["to"][0],
        "id": 1,
        "date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now)),
        "ts_epoch": int(now * 1000),
        "message-id": message["id"],
        "subject": message["subject"],
        "X-Mailin-custom": message["headers"]["X-Mailin-custom"],
    }
