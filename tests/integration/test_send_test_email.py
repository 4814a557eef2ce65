"""manage.py send_test_email: one email through the configured provider (the mail simulator over
real HTTP), marked as a test, tied to no order, audited; and its delivery webhooks are stored
and change nothing."""

import base64
import json
import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from svix.webhooks import Webhook

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import Notification, OperatorAction, ProviderEvent, Suppression
from tools.drill.processes import REPO

pytestmark = pytest.mark.django_db

SIGNING_KEY = "whsec_" + base64.b64encode(b"test-webhook-secret-32-bytes-long").decode()


def _send(*args: str) -> str:
    out = StringIO()
    call_command("send_test_email", *args, "--actor", "ops", stdout=out, stderr=StringIO())
    return out.getvalue()


def test_one_email_marked_as_a_test_goes_out_with_a_test_key_and_is_recorded(mailsim):
    # when
    printed = _send("me@example.com", "--kind", "order_cancellation", "--locale", "ru")
    # then: exactly one message, both parts, the [Test] subject and a key of its own
    [message] = mailsim.messages()
    assert message["to"] == ["me@example.com"]
    assert message["subject"].startswith("[Test] ")
    assert "1001" in message["subject"]  # the sample order's number
    assert message["text"].strip()
    assert message["html"].startswith("<!DOCTYPE html>")
    key = message["idempotency_key"]
    assert key.startswith("test-")
    assert str(uuid.UUID(key.removeprefix("test-"))) == key.removeprefix("test-")
    assert f"key {key}" in printed
    assert "accepted" in printed
    # and no order or notification is behind it; the operator action says who, what, the outcome
    assert not Notification.objects.filter(idempotency_key=key).exists()
    action = OperatorAction.objects.get()
    assert (action.action, action.actor_name, action.notification) == ("test_send", "ops", None)
    assert action.comment == f"to me@example.com, order_cancellation (ru), key {key}"
    assert action.result == f"accepted, provider message id {message['id']}, HTTP 200"
    assert action.finished_at is not None


def test_a_refusal_by_the_provider_exits_non_zero_with_the_reason_and_is_recorded(mailsim):
    mailsim.set_faults({"kind": "reject", "times": 1})
    with pytest.raises(
        CommandError, match=r"resend did not accept the test email \(test-.*\): permanent, HTTP 422"
    ):
        _send("me@example.com")
    assert OperatorAction.objects.get().result.startswith("permanent, HTTP 422")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["not-an-address"], "Nothing sent: 'not-an-address' is not an email address."),
        (
            ["me@example.com", "--kind", "order_shipped"],
            "There is no email kind 'order_shipped'; the kinds are",
        ),
        (
            ["me@example.com", "--locale", "de"],
            "The emails are not written in 'de'; the languages are en, ru.",
        ),
    ],
)
def test_a_wrong_argument_is_a_usage_error_and_nothing_is_sent(args, message, mailsim):
    with pytest.raises(CommandError) as raised:
        _send(*args)
    assert message in str(raised.value)
    assert mailsim.messages() == []
    assert not OperatorAction.objects.exists()


def test_an_invalid_address_exits_with_a_plain_error_not_a_traceback():
    result = subprocess.run(
        [sys.executable, "manage.py", "send_test_email", "ada at example"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "CommandError: Nothing sent: 'ada at example' is not an email address." in result.stderr
    assert "Traceback" not in result.stderr


def test_a_delivery_webhook_for_a_test_email_is_stored_and_changes_nothing(mailsim, settings):
    settings.RESEND_WEBHOOK_SECRET = SIGNING_KEY
    _send("bounces@example.com")
    [message] = mailsim.messages()
    # when the provider reports a delivery and then a hard bounce for it
    for kind, extra in [
        ("email.delivered", {}),
        ("email.bounced", {"bounce": {"type": "Permanent", "message": "no such user"}}),
    ]:
        response = _post_resend_event(kind, message, **extra)
        assert (response.status_code, response.json()["detail"]) == (200, "stored")
    # then both are stored, applied without error, tied to nothing
    assert _apply_all() == ["a test email's event, tied to no notification; stored for the record"] * 2
    events = ProviderEvent.objects.all()
    assert {(event.idempotency_key, event.notification_id) for event in events} == {
        (message["idempotency_key"], None)
    }
    assert all(event.applied_at is not None for event in events)
    assert not Suppression.objects.exists()  # a test address is not a customer's


def _post_resend_event(kind: str, message: dict, **data: object):
    body = json.dumps(
        {
            "type": kind,
            "created_at": datetime.now(UTC).isoformat(),
            "data": {
                "email_id": message["id"],
                "to": message["to"],
                "subject": message["subject"],
                "created_at": datetime.now(UTC).isoformat(),
                "tags": {"idempotency_key": message["idempotency_key"]},
                **data,
            },
        }
    )
    event_id = f"msg_{uuid.uuid4().hex}"
    now = datetime.now(UTC)
    headers = {
        "svix-id": event_id,
        "svix-timestamp": str(int(now.timestamp())),
        "svix-signature": Webhook(SIGNING_KEY).sign(event_id, now, body),
    }
    return Client().post("/webhooks/resend/", data=body, content_type="application/json", headers=headers)


def _apply_all() -> list[str]:
    """Each stored provider event through the dispatcher, as a worker runs it."""
    delivery = Delivery(worker="test pid 1", retries=0, max_retries=8)
    events = OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED).order_by("created_at")
    return [event_dispatch(raw_envelope=event.payload, delivery=delivery) for event in events]
