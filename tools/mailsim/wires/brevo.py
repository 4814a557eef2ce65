"""Brevo's ``POST /v3/smtp/email``: an ``api-key`` header, ``201 {"messageId": "<…@smtp-relay.mailin.fr>"}``.

Errors are always ``{"code": str, "message": str}``. The idempotency key travels in the body, as
``headers.idempotencyKey``, and must be a UUID. Unlike Resend, Brevo does not replay: a key used
once within its window (30 minutes by default) is refused with ``400 duplicate_parameter``,
whatever the body and even while the first request is still in flight, and the original
messageId is not returned.
"""

import random
import re
from datetime import UTC, datetime
from typing import Any

from tools.mailsim.attachments import read_attachments
from tools.mailsim.faults import FaultRule
from tools.mailsim.records import KeyRecord, Message
from tools.mailsim.simulator import Simulator
from tools.mailsim.validation import (
    ValidationError,
    fingerprint,
    is_plausible_address,
    load_object,
    string_map,
)
from tools.mailsim.wire import Headers, Response, json_response
from tools.mailsim.wires.base import EmailRequest, Outcome, Refusal, Wire, secret_matches

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


class MissingParameter(ValidationError):
    pass


class BrevoWire(Wire):
    name = "brevo"

    def read(self, sim: Simulator, headers: Headers, body: bytes) -> EmailRequest:
        given = headers.get("api-key")
        if not given or not secret_matches(given, sim.api_key):
            raise _refusal(401, "unauthorized", "Key not found")
        try:
            return parse_email(body)
        except MissingParameter as exc:
            raise _refusal(400, "missing_parameter", str(exc)) from None
        except ValidationError as exc:
            raise _refusal(400, "invalid_parameter", str(exc)) from None

    def refuse(self, rule: FaultRule, email: EmailRequest) -> Refusal:
        if rule.kind == "reject":
            return _refusal(400, "invalid_parameter", "The recipient address was rejected", fault=rule.kind)
        if rule.kind == "key_conflict":  # Brevo's only word for a key it has seen: a duplicate
            return _refusal(
                400, "duplicate_parameter", "The idempotencyKey was already used.", fault=rule.kind
            )
        retry_after = {"Retry-After": str(rule.retry_after)}
        if rule.kind == "429":
            message = "The expected rate limit is exceeded."
            return _refusal(429, "too_many_requests", message, retry_after, rule.kind)
        message = "The service is temporarily unavailable. Please retry later."
        return _refusal(503, "service_unavailable", message, retry_after, rule.kind)

    def new_message_id(self, sim: Simulator) -> str:
        # Brevo's shape: <YYYYMMDDHHMM.NNNNNNNNNNN@smtp-relay.mailin.fr>.
        stamp = datetime.fromtimestamp(sim.clock.now(), UTC).strftime("%Y%m%d%H%M")
        return f"<{stamp}.{random.randrange(10**10, 10**11)}@smtp-relay.mailin.fr>"

    def accepted(self, message: Message) -> Response:
        return json_response(201, {"messageId": message.id})

    def key_window_seconds(self, sim: Simulator) -> float | None:
        return sim.brevo_idempotency_window_seconds

    def answer_existing(self, record: KeyRecord, fingerprint: str) -> Outcome:
        refusal = _refusal(400, "duplicate_parameter", "The idempotencyKey was already used.")
        return Outcome(refusal.response, refusal.name)


def parse_email(body: bytes) -> EmailRequest:
    payload = load_object(body)
    sender = _contact(payload.get("sender"), "sender")
    recipients = _recipients(payload)
    subject = payload.get("subject")
    if not isinstance(subject, str) or not subject.strip():
        raise MissingParameter("subject is missing")
    text, html = payload.get("textContent"), payload.get("htmlContent")
    if not any(isinstance(content, str) and content for content in (text, html)):
        raise MissingParameter("htmlContent or textContent is missing")
    if any(content is not None and not isinstance(content, str) for content in (text, html)):
        raise ValidationError("htmlContent and textContent must be strings")
    headers = string_map(payload, "headers")
    key = headers.get("idempotencyKey")
    if key is not None and not UUID.fullmatch(key):
        raise ValidationError("headers.idempotencyKey must be a UUID")
    reply_to = payload.get("replyTo")
    return EmailRequest(
        sender,
        recipients,
        subject,
        text,
        html,
        fingerprint(payload),
        idempotency_key=key,
        tags=_tags(payload.get("tags")),
        headers=headers,
        reply_to=[] if reply_to is None else [_contact(reply_to, "replyTo")],
        # Brevo takes no type: the name's extension gives it.
        attachments=read_attachments(payload.get("attachment"), "attachment", "name", "content"),
    )


def _contact(value: Any, name: str) -> str:
    if value is None:
        raise MissingParameter(f"{name} is missing")
    if not isinstance(value, dict) or not isinstance(value.get("email"), str):
        raise ValidationError(f"{name}.email is missing or not a string")
    if not is_plausible_address(value["email"]):
        raise ValidationError(f"{name}.email {value['email']!r} is not a valid email address")
    if value.get("name") is not None and not isinstance(value["name"], str):
        raise ValidationError(f"{name}.name must be a string")
    return value["email"]


def _recipients(payload: dict[str, Any]) -> tuple[str, ...]:
    to = payload.get("to")
    if to is None:
        raise MissingParameter("to is missing")
    if not isinstance(to, list) or not to:
        raise ValidationError("to must be a non-empty list of {email, name} objects")
    copies = [payload.get(field) or [] for field in ("cc", "bcc")]
    if not all(isinstance(field, list) for field in copies):
        raise ValidationError("cc and bcc must be lists of {email, name} objects")
    for contact in [contact for field in copies for contact in field]:
        _contact(contact, "cc/bcc")
    return tuple(_contact(contact, "to") for contact in to)


def _tags(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(tag, str) and tag for tag in value):
        raise ValidationError("tags must be a list of non-empty strings")
    return value


def _refusal(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, fault: str | None = None
) -> Refusal:
    return Refusal(json_response(status, {"code": code, "message": message}, headers), code, fault)
