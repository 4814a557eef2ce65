"""Delivery webhook requests as each provider posts them, genuine or forged, for the tests of
who may post events: the provider's settings (with or without its webhook secret), and a hard
bounce naming one of our emails, in that ESP's own shape, through Django's test client."""

import base64
import hashlib
import hmac
import json
import time
import uuid
from datetime import UTC, datetime

from django.test import Client
from svix.webhooks import Webhook

SVIX_SIGNING_KEY = "whsec_" + base64.b64encode(b"test-webhook-signing-key-24b").decode()
BASIC_AUTH = "hooks:test-webhook-password"
MAILGUN_KEY = "test-mailgun-webhook-signing-key"
POSTMARK = "anymail.backends.postmark.EmailBackend"
MAILGUN = "anymail.backends.mailgun.EmailBackend"

# Each supported endpoint: its path, and the settings that make it the configured one.
ENDPOINTS = {
    "resend": ("/webhooks/resend/", {"MAIL_PROVIDER": "resend"}),
    "brevo": ("/webhooks/anymail/brevo/tracking/", {"MAIL_PROVIDER": "brevo"}),
    "ses": ("/webhooks/anymail/amazon_ses/tracking/", {"MAIL_PROVIDER": "ses"}),
    "postmark": (
        "/webhooks/anymail/postmark/tracking/",
        {"MAIL_PROVIDER": "anymail", "ANYMAIL_BACKEND": POSTMARK},
    ),
    "mailgun": (
        "/webhooks/anymail/mailgun/tracking/",
        {"MAIL_PROVIDER": "anymail", "ANYMAIL_BACKEND": MAILGUN},
    ),
}


def provider_configure(settings, endpoint: str, *, secret: bool = True) -> str:
    """Make `endpoint`'s provider the configured one, with its webhook secret or without any;
    returns its path."""
    path, provider = ENDPOINTS[endpoint]
    for name, value in provider.items():
        setattr(settings, name, value)
    settings.RESEND_WEBHOOK_SECRET = SVIX_SIGNING_KEY if secret and endpoint == "resend" else ""
    anymail = {k: v for k, v in settings.ANYMAIL.items() if k not in ("WEBHOOK_SECRET", "MAILGUN_API_KEY")}
    if secret and endpoint in ("brevo", "ses", "postmark"):
        anymail["WEBHOOK_SECRET"] = BASIC_AUTH
    if secret and endpoint == "mailgun":
        anymail["MAILGUN_WEBHOOK_SIGNING_KEY"] = MAILGUN_KEY
    else:
        anymail.pop("MAILGUN_WEBHOOK_SIGNING_KEY", None)
    settings.ANYMAIL = anymail
    return path


def hard_bounce(endpoint: str, *, key: str, address: str, genuine: bool) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a hard bounce of the email sent under `key`; genuine: with the
    credentials the ESP sends, else with none (Mailgun's: a made-up signature)."""
    body, headers = BOUNCES[endpoint](key, address, genuine)
    if genuine and endpoint in ("brevo", "ses", "postmark"):
        headers["Authorization"] = "Basic " + base64.b64encode(BASIC_AUTH.encode()).decode()
    return body, headers


def webhook_post(path: str, body: bytes, headers: dict[str, str] | None = None):
    # A 500 comes back as a response, as a client sees it, instead of an exception in the test;
    # and CSRF is checked, as for any client that is not a test (providers send no token).
    client = Client(raise_request_exception=False, enforce_csrf_checks=True)
    return client.post(path, data=body, content_type="application/json", headers=headers or {})


def svix_headers(body: bytes, secret: str = SVIX_SIGNING_KEY) -> dict[str, str]:
    event_id, now = f"msg_{uuid.uuid4().hex}", datetime.now(UTC)
    return {
        "svix-id": event_id,
        "svix-timestamp": str(int(now.timestamp())),
        "svix-signature": Webhook(secret).sign(event_id, now, body.decode()),
    }


def _resend(key: str, address: str, genuine: bool) -> tuple[bytes, dict[str, str]]:
    now = datetime.now(UTC).isoformat()
    data = {
        "email_id": f"re-{uuid.uuid4()}",
        "to": [address],
        "created_at": now,
        "tags": {"idempotency_key": key},
    }
    data["bounce"] = {"type": "Permanent", "message": "mailbox does not exist"}
    body = json.dumps({"type": "email.bounced", "created_at": now, "data": data}).encode()
    return body, svix_headers(body) if genuine else {}


def _brevo(key: str, address: str, genuine: bool) -> tuple[bytes, dict[str, str]]:
    event = {
        "event": "hard_bounce",
        "email": address,
        "message-id": f"<{uuid.uuid4()}@smtp-relay.mailin.fr>",
        "ts_epoch": int(time.time() * 1000),
        "reason": "mailbox does not exist",
        "X-Mailin-custom": json.dumps({"idempotency_key": key}),
    }
    return json.dumps(event).encode(), {}


def _ses(key: str, address: str, genuine: bool) -> tuple[bytes, dict[str, str]]:
    message_id = str(uuid.uuid4())
    ses_event = {
        "eventType": "Bounce",
        "bounce": {
            "bounceType": "Permanent",
            "bounceSubType": "General",
            "bouncedRecipients": [{"emailAddress": address, "diagnosticCode": "550 no such user"}],
        },
        "mail": {
            "messageId": f"ses-{uuid.uuid4()}",
            "destination": [address],
            "headers": [{"name": "X-Metadata", "value": json.dumps({"idempotency_key": key})}],
        },
    }
    notification = {
        "Type": "Notification",
        "MessageId": message_id,
        "TopicArn": "arn:aws:sns:eu-west-1:123456789012:ses-events",
        "Message": json.dumps(ses_event),
        "Timestamp": datetime.now(UTC).isoformat(),
    }
    headers = {"x-amz-sns-message-type": "Notification", "x-amz-sns-message-id": message_id}
    return json.dumps(notification).encode(), headers


def _postmark(key: str, address: str, genuine: bool) -> tuple[bytes, dict[str, str]]:
    return postmark_record("Bounce", key, address, Type="HardBounce", Description="no such user"), {}


def postmark_record(record_type: str, key: str, address: str, **fields: object) -> bytes:
    record = {
        "RecordType": record_type,
        "ID": int(time.time() * 1000) % 10**9,
        "MessageID": str(uuid.uuid4()),
        "Recipient": address,
        "Email": address,
        "BouncedAt": datetime.now(UTC).isoformat(),
        "Metadata": {"idempotency_key": key},
        "MessageStream": "outbound",
        **fields,
    }
    return json.dumps(record).encode()


def _mailgun(key: str, address: str, genuine: bool) -> tuple[bytes, dict[str, str]]:
    token, timestamp = uuid.uuid4().hex, str(int(time.time()))
    signing_key = (MAILGUN_KEY if genuine else "not-the-key").encode()
    signature = hmac.new(signing_key, f"{timestamp}{token}".encode(), hashlib.sha256).hexdigest()
    event = {
        "signature": {"token": token, "timestamp": timestamp, "signature": signature},
        "event-data": {
            "event": "failed",
            "severity": "permanent",
            "recipient": address,
            "timestamp": float(timestamp),
            "reason": "bounce",
            "message": {"headers": {"message-id": f"{uuid.uuid4()}@mg.example.com"}},
            "user-variables": {"idempotency_key": key},
            "delivery-status": {"description": "no such user", "message": "550 no such user"},
        },
    }
    return json.dumps(event).encode(), {}


BOUNCES = {"resend": _resend, "brevo": _brevo, "ses": _ses, "postmark": _postmark, "mailgun": _mailgun}
