"""Delivery events from every ESP Anymail covers (Postmark, Brevo, Mailgun, SES…), through
Anymail's tracking webhooks (`/webhooks/anymail/<esp>/tracking/`, only the configured
provider's mounted). Anymail verifies each request its ESP's way (a signature, or basic auth
with ANYMAIL's WEBHOOK_SECRET, where that is the provider's only scheme) before it sends the
`tracking` signal; this receiver turns the signal into our event and stores it, if it comes
from the configured provider's ESP."""

import hashlib
import json
from typing import Any

from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.signals import AnymailTrackingEvent, tracking
from django.conf import settings
from django.utils import timezone

from notifications.providers.base import KEY_TAG
from notifications.providers.catalogue import delivery_webhooks
from notifications.tracking.intake import provider_event_store
from notifications.tracking.normalised import Kind, TrackingEvent

# Anymail's normalised event types we act on; the rest (opened, clicked…) is not delivery.
KINDS = {
    "queued": Kind.SENT,
    "sent": Kind.SENT,
    "deferred": Kind.DELIVERY_DELAYED,
    "delivered": Kind.DELIVERED,
    "bounced": Kind.BOUNCED,  # Anymail's "bounced" is permanent; a temporary one is "deferred"
    "rejected": Kind.BOUNCED,  # the ESP refused to deliver (e.g. its own suppression list)
    "complained": Kind.COMPLAINED,
}


def anymail_event(event: AnymailTrackingEvent, esp_name: str) -> TrackingEvent | None:
    kind = KINDS.get(event.event_type or "")
    if kind is None:
        return None
    metadata = event.metadata if isinstance(event.metadata, dict) else {}
    payload = _json_safe(event.esp_event)
    return TrackingEvent(
        provider=esp_name.lower(),
        provider_event_id=event.event_id or _derived_event_id(esp_name, event, payload),
        kind=kind,
        occurred_at=event.timestamp or timezone.now(),  # not every ESP says when
        provider_message_id=str(event.message_id or ""),
        idempotency_key=str(metadata.get(KEY_TAG, "")),
        recipient=event.recipient or "",
        hard_bounce=kind == Kind.BOUNCED and not _soft_bounce(payload),
        description=event.description or event.mta_response or "",
        payload=payload,
    )


def _soft_bounce(payload: dict[str, Any]) -> bool:
    # Anymail reports Postmark's SoftBounce and Brevo's soft_bounce as "bounced" too; only
    # the ESP's own record says the mailbox may work tomorrow, which must not suppress it.
    return payload.get("Type") == "SoftBounce" or payload.get("event") == "soft_bounce"


def _derived_event_id(esp_name: str, event: AnymailTrackingEvent, payload: dict[str, Any]) -> str:
    # Some ESPs give no event id (Postmark's Delivery records): the same record posted twice
    # hashes the same, so a redelivery is still stored once.
    canonical = json.dumps(
        [esp_name, event.event_type, event.message_id, payload], sort_keys=True, default=str
    )
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def _json_safe(esp_event: object) -> dict[str, Any]:
    if isinstance(esp_event, dict):
        return json.loads(json.dumps(esp_event, default=str))
    return {"esp_event": str(esp_event)}


def tracking_event_receive(
    sender: object, event: AnymailTrackingEvent, esp_name: str, **kwargs: object
) -> None:
    configured = [webhook.esp for webhook in delivery_webhooks()]
    if esp_name.lower() not in configured:
        # Whatever view sent it, an ESP we do not send through cannot speak about our emails.
        # Anymail answers this exception (a SuspiciousOperation) with a 400; nothing is stored.
        raise AnymailWebhookValidationFailure(
            f"{esp_name} events are refused: MAIL_PROVIDER={settings.MAIL_PROVIDER} hears only from "
            f"{' and '.join(configured) or 'no ESP'}."
        )
    normalised = anymail_event(event, esp_name)
    if normalised is not None:
        provider_event_store(normalised)


def anymail_tracking_connect() -> None:
    tracking.connect(tracking_event_receive, dispatch_uid="notifications.tracking.anymail")
