"""Resend's email events (resend.com/docs/webhooks): one event per email, signed with Svix.

Payload: ``{"type", "created_at", "data": {"created_at", "email_id", "from", "to", "subject",
"tags": {name: value}}}``, plus ``data.headers`` [{name, value}] when the send had headers
(Anymail reads its X-Tags and X-Metadata back from there) and ``data.bounce`` on email.bounced.
"""

from typing import Any

from tools.mailsim.records import Message
from tools.mailsim.webhooks.events import EventTime, OutcomeFor, WebhookEvent, encode, utc
from tools.mailsim.webhooks.signing import svix_event_id

# (event type, step) a message goes through, by the fault kind that chose its fate.
TIMELINES = {
    None: (("email.sent", 0), ("email.delivered", 1)),
    "bounce": (("email.sent", 0), ("email.bounced", 1)),
    "complaint": (("email.sent", 0), ("email.delivered", 1), ("email.complained", 2)),
    "delay": (("email.sent", 0), ("email.delivery_delayed", 1), ("email.delivered", 2)),
}
# Anymail maps a bounce whose message mentions "bounce message" to reject_reason "bounced".
BOUNCE = {
    "type": "Permanent",
    "subType": "General",
    "message": (
        "The recipient's email provider sent a hard bounce message, but didn't specify the reason"
        " for the hard bounce. We recommend removing the recipient's email address from your"
        " mailing list."
    ),
}


def events(message: Message, outcome_for: OutcomeFor, at: EventTime) -> list[WebhookEvent]:
    # One event per email, not per recipient: the fate of the email is its first chosen one.
    outcomes = [outcome_for(recipient) for recipient in message.recipients]
    outcome = next((chosen for chosen in outcomes if chosen is not None), None)
    return [
        WebhookEvent(svix_event_id(), event_type, step, encode(_payload(message, event_type, at(step))))
        for event_type, step in TIMELINES[outcome]
    ]


def _payload(message: Message, event_type: str, at: float) -> dict[str, Any]:
    data: dict[str, Any] = {
        "created_at": utc(message.accepted_at).isoformat(timespec="microseconds"),
        "email_id": message.id,
        "from": message.sender,
        "to": list(message.recipients),
        "subject": message.subject,
    }
    if message.tags:
        data["tags"] = {tag["name"]: tag["value"] for tag in message.tags}
    if message.headers:
        data["headers"] = [{"name": name, "value": value} for name, value in message.headers.items()]
    if event_type == "email.bounced":
        data["bounce"] = BOUNCE
    created_at = utc(at).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {"type": event_type, "created_at": created_at, "data": data}
