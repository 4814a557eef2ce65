"""Brevo's transactional webhook events (developers.brevo.com/docs/transactional-webhooks): one event
per recipient, protected by basic auth only.

The fields are those Anymail's Brevo tracking webhook reads: ``event``, ``email``,
``message-id``, ``ts_epoch`` (UTC milliseconds; ``ts``, ``ts_event`` and ``date`` too),
``tags`` (and ``tag``, their JSON), ``reason`` on a bounce or deferral, and ``X-Mailin-custom``,
the send's header of that name unchanged (Anymail puts its metadata there).
"""

import json
from typing import Any

from tools.mailsim.records import Message
from tools.mailsim.webhooks.events import EventTime, OutcomeFor, WebhookEvent, encode, internal_event_id, utc

TIMELINES = {
    None: (("request", 0), ("delivered", 1)),
    "bounce": (("request", 0), ("hard_bounce", 1)),
    "complaint": (("request", 0), ("delivered", 1), ("spam", 2)),
    "delay": (("request", 0), ("deferred", 1), ("delivered", 2)),
}
REASONS = {
    "hard_bounce": "RecipientError: 550 5.1.1 The email account that you tried to reach does not exist.",
    "deferred": "451 4.7.1 Please try again later (the receiving server deferred the message).",
}
# Brevo's "id" is the id of the webhook (account-wide), not of the event.
WEBHOOK_ID = 1
# An address of TEST-NET-1 (RFC 5737): the simulator sends from nowhere.
SENDING_IP = "192.0.2.25"


def events(message: Message, outcome_for: OutcomeFor, at: EventTime) -> list[WebhookEvent]:
    return [
        WebhookEvent(internal_event_id(), event, step, encode(_payload(message, recipient, event, at(step))))
        for recipient in message.recipients
        for event, step in TIMELINES[outcome_for(recipient)]
    ]


def _payload(message: Message, recipient: str, event: str, at: float) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "event": event,
        "email": recipient,
        "id": WEBHOOK_ID,
        "date": utc(at).strftime("%Y-%m-%d %H:%M:%S"),
        "ts": int(at),
        "message-id": message.id,
        "ts_event": int(at),
        "subject": message.subject,
        "sending_ip": SENDING_IP,
        "ts_epoch": int(at * 1000),
    }
    custom = _header(message.headers, "X-Mailin-custom")
    if custom is not None:
        payload["X-Mailin-custom"] = custom
    if message.tags:
        payload["tag"] = json.dumps(message.tags, separators=(",", ":"))
        payload["tags"] = list(message.tags)
    if event in REASONS:
        payload["reason"] = REASONS[event]
    return payload


def _header(headers: dict[str, str], name: str) -> str | None:
    # Header names are case-insensitive; Anymail writes this one as X-Mailin-custom.
    return next((value for key, value in headers.items() if key.lower() == name.lower()), None)
