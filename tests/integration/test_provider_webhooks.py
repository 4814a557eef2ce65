"""Delivery webhooks: verified, stored once, applied by the event dispatcher (as a worker
runs it), states forward only, suppression, and unknown outcomes settled by evidence."""

import base64
import json
import logging
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from svix.webhooks import Webhook

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent, ProcessedEvent
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import Notification, OperatorAction, ProviderEvent, Suppression
from operations.review.resolve import notification_send_again
from tests.factories import DeliveryAttemptFactory, NotificationFactory, OrderFactory

pytestmark = pytest.mark.django_db

SIGNING_KEY = "whsec_" + base64.b64encode(b"test-webhook-secret-32-bytes-long").decode()
DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)


@pytest.fixture(autouse=True)
def _webhook_secret(settings):
    settings.MAIL_PROVIDER = "resend"  # the only provider whose webhook is /webhooks/resend/
    settings.RESEND_WEBHOOK_SECRET = SIGNING_KEY


def _resend_body(kind: str, notification: Notification, **data: object) -> bytes:
    payload = {
        "type": kind,
        "created_at": datetime.now(UTC).isoformat(),
        "data": {
            "email_id": notification.provider_message_id or "re-msg-1",
            "to": [notification.order.customer_email],
            "subject": "Your order",
            "created_at": datetime.now(UTC).isoformat(),
            "tags": {"idempotency_key": notification.idempotency_key},
            **data,
        },
    }
    return json.dumps(payload).encode()


def _post(body: bytes, *, event_id: str = "", secret: str = SIGNING_KEY, at: datetime | None = None):
    event_id = event_id or f"msg_{uuid.uuid4().hex}"
    timestamp = at or datetime.now(UTC)
    signature = Webhook(secret).sign(event_id, timestamp, body.decode())
    headers = {
        "svix-id": event_id,
        "svix-timestamp": str(int(timestamp.timestamp())),
        "svix-signature": signature,
    }
    return Client().post("/webhooks/resend/", data=body, content_type="application/json", headers=headers)


def _apply_all() -> list[str]:
    """Run every stored provider event's outbox event through the dispatcher, as a worker does."""
    events = OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED).order_by("created_at")
    return [event_dispatch(raw_envelope=event.payload, delivery=DELIVERY) for event in events]


def _sent_confirmation(**fields) -> Notification:
    return NotificationFactory.create(
        status="sent", provider_message_id=f"re-{uuid.uuid4()}", provider="resend", **fields
    )


def test_a_valid_event_is_stored_answered_at_once_and_applied_by_the_dispatcher():
    notification = _sent_confirmation()
    # when
    response = _post(_resend_body("email.delivered", notification), event_id="msg_one")
    # then: stored and queued, not yet applied
    assert (response.status_code, response.json()["detail"]) == (200, "stored")
    stored = ProviderEvent.objects.get()
    assert (stored.provider, stored.provider_event_id, stored.kind) == ("resend", "msg_one", "delivered")
    assert stored.applied_at is None
    assert Notification.objects.get(pk=notification.pk).delivery_status == ""
    # when
    assert _apply_all() == ["delivery status delivered"]
    # then
    notification.refresh_from_db()
    assert notification.delivery_status == "delivered"
    stored.refresh_from_db()
    assert stored.notification_id == notification.pk
    assert stored.applied_at is not None
    assert ProcessedEvent.objects.filter(handler="provider_event_apply").count() == 1


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(
            lambda body: (body.replace(b"delivered", b"bounced"), {}), id="body changed after signing"
        ),
        pytest.param(
            lambda body: (body, {"signing_key": "whsec_" + base64.b64encode(b"x" * 32).decode()}),
            id="other key",
        ),
        pytest.param(
            lambda body: (body, {"at": datetime.now(UTC) - timedelta(minutes=10)}), id="stale timestamp"
        ),
    ],
)
def test_a_request_not_signed_by_resend_is_refused_and_nothing_is_stored(tamper):
    notification = _sent_confirmation()
    body = _resend_body("email.delivered", notification)
    event_id, timestamp = "msg_forged", datetime.now(UTC)
    signed_body, change = tamper(body)
    secret = change.get("signing_key", SIGNING_KEY)
    timestamp = change.get("at", timestamp)
    signature = Webhook(secret).sign(event_id, timestamp, body.decode())
    headers = {
        "svix-id": event_id,
        "svix-timestamp": str(int(timestamp.timestamp())),
        "svix-signature": signature,
    }
    # when
    response = Client().post(
        "/webhooks/resend/", data=signed_body, content_type="application/json", headers=headers
    )
    # then
    assert response.status_code == 401, response.content
    assert ProviderEvent.objects.count() == 0
    assert OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED).count() == 0


def test_a_signed_payload_we_cannot_read_is_refused_with_the_reason():
    response = _post(json.dumps({"type": "email.delivered", "data": {"to": ["x@example.com"]}}).encode())
    assert response.status_code == 400
    assert "email_id" in response.json()["detail"]
    assert ProviderEvent.objects.count() == 0


def test_an_event_we_do_not_track_is_acknowledged_and_not_stored():
    response = _post(_resend_body("email.opened", _sent_confirmation()))
    assert (response.status_code, response.json()["detail"]) == (200, "ignored: not a delivery event")
    assert ProviderEvent.objects.count() == 0


def test_without_a_secret_the_endpoint_says_so_and_stores_nothing(settings):
    settings.RESEND_WEBHOOK_SECRET = ""
    response = _post(_resend_body("email.delivered", _sent_confirmation()))
    assert response.status_code == 503
    assert "RESEND_WEBHOOK_SECRET" in response.json()["detail"]
    assert ProviderEvent.objects.count() == 0


def test_the_same_event_twice_is_stored_and_applied_once():
    notification = _sent_confirmation()
    body = _resend_body(
        "email.bounced", notification, bounce={"type": "Permanent", "message": "no such user"}
    )
    # when
    first = _post(body, event_id="msg_twice")
    second = _post(body, event_id="msg_twice")
    # then
    assert [first.json()["detail"], second.json()["detail"]] == ["stored", "already stored"]
    assert ProviderEvent.objects.count() == 1
    assert _apply_all() == ["delivery status bounced; address suppressed"]
    assert Suppression.objects.count() == 1


@pytest.mark.parametrize(
    ("arrival", "final"),
    [
        (["email.delivered", "email.delivery_delayed", "email.sent"], "delivered"),
        (["email.delivery_delayed", "email.sent", "email.delivered"], "delivered"),
        (["email.bounced", "email.delivered", "email.delivery_delayed"], "bounced"),
        (["email.complained", "email.delivered"], "complained"),
    ],
)
def test_states_only_move_forward_whatever_order_the_events_arrive_in(arrival, final):
    notification = _sent_confirmation()
    for kind in arrival:
        _post(_resend_body(kind, notification))
    # when
    _apply_all()
    # then
    notification.refresh_from_db()
    assert notification.delivery_status == final
    assert notification.status == "sent"


def test_a_hard_bounce_suppresses_the_address_and_the_next_email_to_it_is_skipped_with_the_reason(mailsim):
    notification = _sent_confirmation()
    address = notification.order.customer_email
    _post(
        _resend_body(
            "email.bounced", notification, bounce={"type": "Permanent", "message": "mailbox does not exist"}
        )
    )
    _apply_all()
    [suppression] = Suppression.objects.all()
    assert (suppression.address, suppression.reason) == (address, "bounced")
    # when: a second order to the same address, in another case
    order = OrderFactory.create(customer_email=address.upper())
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    result = event_dispatch(raw_envelope=envelope, delivery=DELIVERY)
    # then
    assert result == "skipped"
    skipped = Notification.objects.get(order=order)
    assert skipped.status == "skipped"
    assert "bounced on" in skipped.last_error
    assert "mailbox does not exist" in skipped.last_error
    assert mailsim.messages() == []


def test_a_soft_bounce_does_not_suppress():
    notification = _sent_confirmation()
    _post(
        _resend_body("email.bounced", notification, bounce={"type": "Transient", "message": "mailbox full"})
    )
    _apply_all()
    assert Suppression.objects.count() == 0
    assert Notification.objects.get(pk=notification.pk).delivery_status == "bounced"


def test_an_unknown_outcome_then_the_providers_delivered_event_ends_sent_and_delivered_with_its_audit():
    notification = NotificationFactory.create(needs_review=True, provider="resend")
    DeliveryAttemptFactory.create(notification=notification, outcome="unknown")
    # when
    _post(_resend_body("email.delivered", notification, email_id="re-found-by-key"))
    assert _apply_all() == ["settled: sent; delivery status delivered"]
    # then
    notification.refresh_from_db()
    assert (notification.status, notification.delivery_status) == ("sent", "delivered")
    assert notification.provider_message_id == "re-found-by-key"
    assert notification.evidence_deadline is None
    [audit] = OperatorAction.objects.filter(notification=notification)
    assert (audit.action, audit.actor_name, audit.result) == ("settle", "provider evidence", "sent")
    assert "Settled by the provider's evidence" in audit.comment


def test_evidence_does_not_overrule_a_persons_decision():
    notification = NotificationFactory.create(status="rejected", provider="resend")
    DeliveryAttemptFactory.create(notification=notification, outcome="unknown")
    _post(_resend_body("email.delivered", notification))
    _apply_all()
    notification.refresh_from_db()
    assert notification.status == "rejected"
    assert not OperatorAction.objects.filter(action="settle").exists()


def test_an_event_for_no_known_email_is_kept_for_the_record():
    notification = _sent_confirmation()
    body = _resend_body("email.delivered", notification, tags={"idempotency_key": str(uuid.uuid4())})
    _post(body)
    assert _apply_all() == ["no notification carries this key or message id; stored for the record"]
    assert ProviderEvent.objects.get().applied_at is not None


def test_an_event_about_a_send_under_a_retired_key_still_finds_its_email(django_capture_on_commit_callbacks):
    # given an email a reviewer sent again under a new key, whose first send the provider
    # only now reports delivered (under the old key, which its tag carries)
    notification = NotificationFactory.create(failed=True, provider_message_id="re-old-send")
    old_key = notification.idempotency_key
    with django_capture_on_commit_callbacks(execute=False):  # no broker needed
        notification_send_again(
            notification_id=notification.pk,
            actor=None,
            actor_name="rita",
            comment="nothing arrived, sending again",
            accept_second_email_risk=True,
        )
    notification.refresh_from_db()
    assert notification.idempotency_key != old_key
    body = _resend_body("email.delivered", notification, tags={"idempotency_key": old_key})
    # when
    _post(body)
    # then: it is in the email's history, and says nothing about the send under the new key
    [result] = _apply_all()
    assert result.startswith("about the earlier send under key v1")
    assert Notification.objects.get(pk=notification.pk).delivery_status == ""
    assert ProviderEvent.objects.get().notification_id == notification.pk


def _refused_quietly(response, caplog, status: int) -> None:
    """The request is answered `status` with a reason; stored nothing; logged no traceback."""
    assert response.status_code == status, response.content
    assert response.json()["detail"]
    assert ProviderEvent.objects.count() == 0
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []


def _post_logged(caplog, body: bytes, signature: str):
    headers = {"svix-id": "msg_x", "svix-timestamp": str(int(datetime.now(UTC).timestamp()))}
    with caplog.at_level(logging.DEBUG):
        return Client(raise_request_exception=False).post(
            "/webhooks/resend/",
            data=body,
            content_type="application/json",
            headers={**headers, "svix-signature": signature},
        )


@pytest.mark.parametrize("signature", ["garbage", "v1,abc", "v1,a,b", "v1"])
def test_a_malformed_svix_signature_is_refused_as_unsigned_without_a_traceback(caplog, signature):
    response = _post_logged(caplog, _resend_body("email.delivered", _sent_confirmation()), signature)
    _refused_quietly(response, caplog, 401)
    assert "svix-signature is malformed" in response.json()["detail"]


def test_a_body_that_is_not_utf8_is_refused_without_a_traceback(caplog):
    body = b'{"type": "email.delivered", "data": {"email_id": "\xff\xfe"}}'
    response = _post_logged(caplog, body, "v1," + base64.b64encode(b"x" * 32).decode())
    _refused_quietly(response, caplog, 400)
    assert response.json()["detail"] == "The body is not UTF-8 text."
