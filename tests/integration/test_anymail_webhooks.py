"""Delivery events from the ESPs Anymail covers, through Anymail's own tracking webhook
views (here Postmark's, whose only scheme is basic auth): verified by Anymail, stored once
by our receiver, applied like any provider event."""

import base64
import json
import uuid

import pytest
from django.test import Client

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import Notification, ProviderEvent, Suppression
from tests.factories import NotificationFactory

pytestmark = pytest.mark.django_db

URL = "/webhooks/anymail/postmark/tracking/"
CREDENTIALS = "anymail:test-webhook-password"
DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)


@pytest.fixture(autouse=True)
def _postmark_through_anymail(settings):
    # Postmark's tracking webhook is mounted only when Postmark is the provider that sends.
    settings.MAIL_PROVIDER = "anymail"
    settings.ANYMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": CREDENTIALS}


def _post(record: dict, credentials: str = CREDENTIALS):
    auth = "Basic " + base64.b64encode(credentials.encode()).decode()
    return Client().post(
        URL, data=json.dumps(record), content_type="application/json", headers={"Authorization": auth}
    )


def _record(notification: Notification, record_type: str, **fields) -> dict:
    return {
        "RecordType": record_type,
        "MessageID": notification.provider_message_id,
        "Recipient": notification.order.customer_email,
        "DeliveredAt": "2026-12-01T10:00:00Z",
        "Metadata": {"idempotency_key": notification.idempotency_key},
        "MessageStream": "outbound",
        **fields,
    }


def _apply_all() -> list[str]:
    events = OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED).order_by("created_at")
    return [event_dispatch(raw_envelope=event.payload, delivery=DELIVERY) for event in events]


def _sent() -> Notification:
    return NotificationFactory.create(
        status="sent", provider="anymail", provider_message_id=str(uuid.uuid4())
    )


def test_a_delivery_record_with_the_right_basic_auth_is_stored_once_and_applied():
    notification = _sent()
    record = _record(notification, "Delivery")
    # when: Postmark's Delivery records carry no event id; the same record posted twice
    assert _post(record).status_code == 200
    assert _post(record).status_code == 200
    # then
    [stored] = ProviderEvent.objects.all()
    assert (stored.provider, stored.kind, stored.idempotency_key) == (
        "postmark",
        "delivered",
        notification.idempotency_key,
    )
    assert stored.provider_event_id.startswith("sha256:")
    assert _apply_all() == ["delivery status delivered"]
    assert Notification.objects.get(pk=notification.pk).delivery_status == "delivered"


def test_wrong_basic_auth_is_refused_and_nothing_is_stored():
    response = _post(_record(_sent(), "Delivery"), credentials="anymail:wrong")
    assert response.status_code == 400  # Anymail's AnymailWebhookValidationFailure
    assert ProviderEvent.objects.count() == 0


def test_a_hard_bounce_suppresses_and_a_soft_bounce_does_not():
    hard, soft = _sent(), _sent()
    _post(
        _record(
            hard,
            "Bounce",
            ID=101,
            Type="HardBounce",
            Email=hard.order.customer_email,
            BouncedAt="2026-12-01T10:00:00Z",
            Description="The server was unable to deliver your message",
        )
    )
    _post(
        _record(
            soft,
            "Bounce",
            ID=102,
            Type="SoftBounce",
            Email=soft.order.customer_email,
            BouncedAt="2026-12-01T10:00:00Z",
            Description="mailbox full",
        )
    )
    _apply_all()
    assert [s.address for s in Suppression.objects.all()] == [hard.order.customer_email]
    assert Notification.objects.get(pk=hard.pk).delivery_status == "bounced"
