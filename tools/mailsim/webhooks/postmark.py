"""Postmark's webhooks (postmarkapp.com/developer/webhooks): Delivery, Bounce and SpamComplaint
records, one per recipient, protected by basic auth only. Postmark posts nothing when it sends.

The fields are those Anymail's Postmark tracking webhook reads: ``RecordType``, ``Type`` (for
bounces and complaints), ``MessageID``, ``Recipient`` / ``Email``, ``DeliveredAt`` /
``BouncedAt``, ``ID`` (bounces), ``Metadata`` and ``Tag`` from the send, ``Description``,
``Details``.
"""

import secrets
from typing import Any

from tools.mailsim.records import Message
from tools.mailsim.webhooks.events import EventTime, OutcomeFor, WebhookEvent, encode, internal_event_id, utc

TIMELINES = {
    None: (("Delivery", 1),),
    "bounce": (("HardBounce", 1),),
    "complaint": (("Delivery", 1), ("SpamComplaint", 2)),
    "delay": (("Transient", 1), ("Delivery", 2)),
}
# Bounce-like records: (RecordType, TypeCode, Name, Description, Details, Inactive).
BOUNCES = {
    "HardBounce": (
        "Bounce",
        1,
        "Hard bounce",
        "The server was unable to deliver your message (ex: unknown user, mailbox not found).",
        "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
        True,
    ),
    "Transient": (
        "Bounce",
        2,
        "Message delayed",
        "The server could not temporarily deliver your message (ex: Message is delayed due to network"
        " troubles).",
        "smtp;451 4.7.1 Please try again later.",
        False,
    ),
    "SpamComplaint": (
        "SpamComplaint",
        100001,
        "Spam complaint",
        "The subscriber explicitly marked this message as spam.",
        "The recipient reported the message as spam.",
        True,
    ),
}
SERVER_ID = 1


def events(message: Message, outcome_for: OutcomeFor, at: EventTime) -> list[WebhookEvent]:
    return [
        WebhookEvent(internal_event_id(), kind, step, encode(_payload(message, recipient, kind, at(step))))
        for recipient in message.recipients
        for kind, step in TIMELINES[outcome_for(recipient)]
    ]


def _payload(message: Message, recipient: str, kind: str, at: float) -> dict[str, Any]:
    when = utc(at).isoformat(timespec="microseconds").replace("+00:00", "Z")
    common = {
        "ServerID": SERVER_ID,
        "MessageStream": message.message_stream or "outbound",
        "MessageID": message.id,
    }
    tag = {"Tag": message.tags[0]} if message.tags else {}
    if kind == "Delivery":
        details = "smtp;250 2.0.0 OK"
        delivery = {"RecordType": "Delivery", **common, "Recipient": recipient, **tag, "DeliveredAt": when}
        return {**delivery, "Details": details, "Metadata": message.metadata}
    record_type, type_code, name, description, details, inactive = BOUNCES[kind]
    return {
        "RecordType": record_type,
        "ID": secrets.randbelow(9 * 10**9) + 10**9,
        "Type": kind,
        "TypeCode": type_code,
        "Name": name,
        **tag,
        **common,
        "Description": description,
        "Details": details,
        "Email": recipient,
        "From": message.sender,
        "BouncedAt": when,
        "DumpAvailable": False,
        "Inactive": inactive,
        "CanActivate": True,
        "Subject": message.subject,
        "Metadata": message.metadata,
    }
