"""Postmark's ``POST /email``: an ``X-Postmark-Server-Token`` header, PascalCase fields.

Answers are ``{"ErrorCode": int, "Message": str}`` (plus ``To``, ``SubmittedAt`` and ``MessageID``
on success, ``ErrorCode`` 0). Invalid input is 422 with ErrorCode 300; the ``reject`` fault is
422 ErrorCode 406, inactive recipient, which Anymail's Postmark backend reports as ``rejected``.
Postmark has no idempotency keys: every accepted request is a new message.
"""

import uuid
from email.utils import getaddresses
from typing import Any

from tools.mailsim.attachments import read_attachments
from tools.mailsim.clock import to_iso
from tools.mailsim.faults import FaultRule
from tools.mailsim.records import Message
from tools.mailsim.simulator import Simulator
from tools.mailsim.validation import ValidationError, fingerprint, is_plausible_address, load_object
from tools.mailsim.wire import Headers, Response, json_response
from tools.mailsim.wires.base import EmailRequest, Refusal, Wire, secret_matches

INVALID_REQUEST = 300
INVALID_JSON = 402
INACTIVE_RECIPIENT = 406
TRACK_LINKS = ("None", "HtmlAndText", "HtmlOnly", "TextOnly")
# Postmark's documented limit: 50 recipients across To, Cc and Bcc.
MAX_RECIPIENTS = 50


class PostmarkWire(Wire):
    name = "postmark"

    def read(self, sim: Simulator, headers: Headers, body: bytes) -> EmailRequest:
        token = headers.get("X-Postmark-Server-Token")
        if not token:
            message = (
                "No Account or Server API tokens were supplied in the HTTP headers. Please add a header"
                " for either X-Postmark-Server-Token or X-Postmark-Account-Token."
            )
            raise _refusal(401, 10, message, "missing_server_token")
        if not secret_matches(token, sim.api_key):
            message = (
                "The Server Token you provided in the X-Postmark-Server-Token request header was invalid."
                " Please verify that you are using a valid token."
            )
            raise _refusal(401, 10, message, "invalid_server_token")
        try:
            payload = load_object(body)
        except ValidationError:
            raise _refusal(422, INVALID_JSON, "Received invalid JSON input.", "invalid_json") from None
        try:
            return parse_email(payload)
        except ValidationError as exc:
            raise _refusal(422, INVALID_REQUEST, str(exc), "invalid_email_request") from None

    def refuse(self, rule: FaultRule, email: EmailRequest) -> Refusal:
        if rule.kind == "reject":
            return _inactive_recipients(email.recipients)
        retry_after = {"Retry-After": str(rule.retry_after)}
        if rule.kind == "429":
            message = "Rate limit exceeded. Please slow down the rate of your requests."
            return _refusal(429, 429, message, "rate_limit_exceeded", retry_after, rule.kind)
        message = "The service is temporarily unavailable for maintenance. Please retry later."
        return _refusal(503, 100, message, "maintenance", retry_after, rule.kind)

    def new_message_id(self, sim: Simulator) -> str:
        return str(uuid.uuid4())

    def accepted(self, message: Message) -> Response:
        return json_response(
            200,
            {
                "To": ", ".join(message.recipients),
                "SubmittedAt": to_iso(message.accepted_at),
                "MessageID": message.id,
                "ErrorCode": 0,
                "Message": "OK",
            },
        )


def parse_email(payload: dict[str, Any]) -> EmailRequest:
    sender = payload.get("From")
    if not isinstance(sender, str) or len(_addresses(sender, "From")) != 1:
        raise ValidationError(f"Invalid 'From' address: '{sender or ''}'.")
    to = _addresses(_optional(payload, "To", str) or "", "To")
    if not to:
        raise ValidationError("Zero recipients specified")
    copies = [_addresses(_optional(payload, field, str) or "", field) for field in ("Cc", "Bcc")]
    if len(to) + sum(len(addresses) for addresses in copies) > MAX_RECIPIENTS:
        raise ValidationError(f"Maximum of {MAX_RECIPIENTS} recipients exceeded.")
    text, html = _optional(payload, "TextBody", str), _optional(payload, "HtmlBody", str)
    if not text and not html:
        raise ValidationError("Provide either email TextBody or HtmlBody or both.")
    _check_tracking(payload)
    tag = _optional(payload, "Tag", str)
    reply_to = _optional(payload, "ReplyTo", str)
    return EmailRequest(
        sender,
        tuple(to),
        _optional(payload, "Subject", str) or "",
        text,
        html,
        fingerprint(payload),
        tags=[tag] if tag else [],
        headers=_headers(payload.get("Headers")),
        metadata=_metadata(payload.get("Metadata")),
        reply_to=[reply_to] if reply_to else [],
        message_stream=_optional(payload, "MessageStream", str) or "outbound",
        attachments=read_attachments(
            payload.get("Attachments"), "Attachments", "Name", "Content", "ContentType"
        ),
    )


def _inactive_recipients(recipients: tuple[str, ...]) -> Refusal:
    # Anymail reads the addresses back out of this exact wording (lowercased, comma-separated).
    found = ", ".join(address.lower() for address in recipients)
    message = (
        "You tried to send to recipient(s) that have been marked as inactive.\n"
        f"Found inactive addresses: {found}.\n"
        "Inactive recipients are ones that have generated a hard bounce or a spam complaint."
    )
    return _refusal(422, INACTIVE_RECIPIENT, message, "inactive_recipient", fault="reject")


def _addresses(value: str, field: str) -> list[str]:
    """The addr-specs of a comma-separated address list ("Name <a@b.c>, d@e.f")."""
    if not value.strip():
        return []
    parsed = [address for _, address in getaddresses([value])]
    for address in parsed:
        if not is_plausible_address(address):
            # Anymail's Postmark backend reads the refused address out of this wording.
            raise ValidationError(f"Invalid '{field}' address: '{address}'.")
    return parsed


def _optional(payload: dict[str, Any], name: str, kind: type) -> Any:
    value = payload.get(name)
    if value is not None and not isinstance(value, kind):
        raise ValidationError(f"Invalid '{name}' value: expected {kind.__name__}.")
    return value


def _check_tracking(payload: dict[str, Any]) -> None:
    _optional(payload, "TrackOpens", bool)
    links = payload.get("TrackLinks")
    if links is not None and links not in TRACK_LINKS:
        raise ValidationError(f"Invalid 'TrackLinks' value: expected one of {', '.join(TRACK_LINKS)}.")


def _headers(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    valid = isinstance(value, list) and all(
        isinstance(item, dict) and isinstance(item.get("Name"), str) and isinstance(item.get("Value"), str)
        for item in value
    )
    if not valid:
        raise ValidationError("Invalid 'Headers' value: expected a list of {Name, Value} strings.")
    return {item["Name"]: item["Value"] for item in value}


def _metadata(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    scalar = (str, int, float)
    if not isinstance(value, dict) or not all(
        isinstance(item, scalar) and not isinstance(item, bool) for item in value.values()
    ):
        raise ValidationError("Invalid metadata content. Metadata values must be strings or numbers.")
    return value


def _refusal(
    status: int,
    error_code: int,
    message: str,
    name: str,
    headers: dict[str, str] | None = None,
    fault: str | None = None,
) -> Refusal:
    return Refusal(json_response(status, {"ErrorCode": error_code, "Message": message}, headers), name, fault)
