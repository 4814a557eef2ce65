"""Resend's delivery webhooks: verified with the `svix` package (Resend signs with Svix:
`svix-id`, `svix-timestamp`, `svix-signature`, secret `whsec_…`), then read.

The svix package (2.9, through standardwebhooks/webhooks.py `verify`) checks the HMAC over
"{id}.{timestamp}.{body}" with a constant-time compare and refuses a timestamp more than five
minutes from now, so a captured request cannot be replayed later. Its `verify` returns
nothing: the body is parsed here, after it passed. `svix-id` is the event's id: Resend repeats it
when it retries a delivery, which is what makes storing an event once possible.
"""

import json
from datetime import datetime
from typing import Any

from notifications.providers.base import KEY_TAG
from notifications.tracking.normalised import Kind, TrackingEvent, UnusableEvent

PROVIDER = "resend"
KINDS = {
    "email.sent": Kind.SENT,
    "email.delivered": Kind.DELIVERED,
    "email.delivery_delayed": Kind.DELIVERY_DELAYED,
    "email.bounced": Kind.BOUNCED,
    "email.complained": Kind.COMPLAINED,
}


class SignatureRefused(Exception):
    """Not signed by Resend with our secret, or signed more than five minutes from now."""


def resend_event_verify(secret: str, body: bytes, headers: dict[str, str]) -> TrackingEvent | None:
    """The event, or None for a genuine event we do not track (opened, clicked…).
    Raises SignatureRefused (not from Resend, or stale) or UnusableEvent."""
    # Imported here, as layout.py imports WeasyPrint: the svix package loads its whole API
    # client with it (over half a second of CPU), and every process of the product imports this module
    # through the providers' catalogue, while only a web process verifies an event.
    from svix.webhooks import Webhook, WebhookVerificationError

    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError as exc:
        raise SignatureRefused(str(exc)) from None
    except ValueError:
        # svix lets these escape as ValueError (an unpacking or base64 error): read as unsigned.
        raise SignatureRefused(
            "its svix-signature is malformed (not `v1,<base64>`), or its body is not UTF-8"
        ) from None
    try:
        payload = json.loads(body)
    except ValueError:
        raise UnusableEvent("the body is not JSON") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), dict):
        raise UnusableEvent("the payload has no `data` object")
    event_type = payload.get("type")
    if not isinstance(event_type, str) or not event_type.startswith("email."):
        raise UnusableEvent(f"unknown event type {event_type!r}")
    kind = KINDS.get(event_type)
    if kind is None:
        return None
    return _event(kind, headers["svix-id"], payload)


def _event(kind: str, event_id: str, payload: dict[str, Any]) -> TrackingEvent:
    data = payload["data"]
    message_id = data.get("email_id")
    if not isinstance(message_id, str) or not message_id:
        raise UnusableEvent("the event names no email (`data.email_id`)")
    bounce = data.get("bounce") if isinstance(data.get("bounce"), dict) else {}
    recipients = data.get("to") if isinstance(data.get("to"), list) else []
    return TrackingEvent(
        provider=PROVIDER,
        provider_event_id=event_id,
        kind=kind,
        occurred_at=_timestamp(payload.get("created_at") or data.get("created_at")),
        provider_message_id=message_id,
        idempotency_key=_tag(data.get("tags"), KEY_TAG),
        recipient=str(recipients[0]) if recipients else "",
        # Resend reports a permanent bounce as type "Permanent"; a transient one does not suppress.
        hard_bounce=kind == Kind.BOUNCED and str(bounce.get("type", "Permanent")) == "Permanent",
        description=str(bounce.get("message", "")),
        payload=payload,
    )


def _tag(tags: object, name: str) -> str:
    # Resend echoes the send's tags as an object ({name: value}); accept the send's list shape too.
    if isinstance(tags, dict):
        return str(tags.get(name, ""))
    if isinstance(tags, list):
        for tag in tags:
            if isinstance(tag, dict) and tag.get("name") == name:
                return str(tag.get("value", ""))
    return ""


def _timestamp(value: object) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        raise UnusableEvent(f"the event's time {value!r} is not an ISO 8601 timestamp") from None
    if moment.tzinfo is None:
        raise UnusableEvent(f"the event's time {value!r} has no time zone")
    return moment
