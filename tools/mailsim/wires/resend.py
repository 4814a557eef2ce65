"""Resend's ``POST /emails``: Bearer auth, an ``Idempotency-Key`` header replayed for 24 hours.

Errors look like ``{"statusCode": int, "name": str, "message": str}``. Checks run in this order:
auth, key length, body, then (in the pipeline) faults and idempotency.
"""

import json
import re
import uuid
from typing import Any

from tools.mailsim.attachments import read_attachments
from tools.mailsim.faults import FaultRule
from tools.mailsim.records import IN_FLIGHT, KeyRecord, Message
from tools.mailsim.simulator import Simulator
from tools.mailsim.validation import (
    ValidationError,
    fingerprint,
    is_plausible_address,
    load_object,
    optional_string,
    required_string,
    string_list,
    string_map,
)
from tools.mailsim.wire import Headers, Response, error_response, json_response
from tools.mailsim.wires.base import EmailRequest, Outcome, Refusal, Wire, secret_matches

MAX_KEY_LENGTH = 256
# Resend's documented limits: 50 recipients a request, 75 tags an email.
MAX_RECIPIENTS = 50
MAX_TAGS = 75
TAG_PART = re.compile(r"[A-Za-z0-9_-]{1,256}")


class ResendWire(Wire):
    name = "resend"

    def read(self, sim: Simulator, headers: Headers, body: bytes) -> EmailRequest:
        _authenticate(sim, headers)
        key = headers.get("Idempotency-Key")
        if key is not None and not 1 <= len(key) <= MAX_KEY_LENGTH:
            raise _refusal(
                400, "invalid_idempotency_key", f"The key must be between 1-{MAX_KEY_LENGTH} chars."
            )
        try:
            return parse_email(body, key)
        except ValidationError as exc:
            raise _refusal(422, "validation_error", str(exc)) from None

    def refuse(self, rule: FaultRule, email: EmailRequest) -> Refusal:
        if rule.kind == "reject":
            return _refusal(422, "validation_error", "The recipient address was rejected", fault=rule.kind)
        if rule.kind == "key_conflict":  # as if another email had been sent under this key before
            message = "Same idempotency key used with a different request payload."
            return _refusal(409, "invalid_idempotent_request", message, fault=rule.kind)
        retry_after = {"Retry-After": str(rule.retry_after)}
        if rule.kind == "429":
            message = "Too many requests. Please limit the number of requests per second."
            return _refusal(429, "rate_limit_exceeded", message, retry_after, rule.kind)
        message = "The mail service is temporarily unavailable. Please retry later."
        return _refusal(503, "service_unavailable", message, retry_after, rule.kind)

    def new_message_id(self, sim: Simulator) -> str:
        return f"msg_{uuid.uuid4().hex}"

    def accepted(self, message: Message) -> Response:
        return json_response(200, {"id": message.id})

    def logged_key(self, headers: Headers) -> str | None:
        return headers.get("Idempotency-Key")

    def key_window_seconds(self, sim: Simulator) -> float | None:
        return sim.idempotency_window_seconds

    def answer_existing(self, record: KeyRecord, fingerprint: str) -> Outcome:
        if record.state == IN_FLIGHT:
            message = "Same idempotency key used while original request is still in progress."
            return _outcome(_refusal(409, "concurrent_idempotent_requests", message))
        if record.fingerprint != fingerprint:
            message = "Same idempotency key used with a different request payload."
            return _outcome(_refusal(409, "invalid_idempotent_request", message))
        response = Response(record.response_status or 200, record.response_body or b"")
        response.headers["Idempotent-Replayed"] = "true"
        return Outcome(response, "replayed", record.message_id)


def parse_email(body: bytes, key: str | None = None) -> EmailRequest:
    payload = load_object(body)
    sender = required_string(payload, "from")
    recipients = _recipients(payload.get("to"))
    subject = required_string(payload, "subject")
    text = optional_string(payload, "text")
    html = optional_string(payload, "html")
    if text is None and html is None:
        raise ValidationError("Missing `text` or `html` field.")
    return EmailRequest(
        sender,
        recipients,
        subject,
        text,
        html,
        fingerprint(payload),
        idempotency_key=key,
        tags=_tags(payload.get("tags")),
        headers=string_map(payload, "headers"),
        reply_to=string_list(payload.get("reply_to"), "reply_to"),
        attachments=read_attachments(
            payload.get("attachments"), "attachments", "filename", "content", "content_type"
        ),
    )


def _authenticate(sim: Simulator, headers: Headers) -> None:
    scheme, _, token = headers.get("Authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        message = "Missing API key in the authorization header. Include `Authorization: Bearer YOUR_API_KEY`."
        raise _refusal(401, "missing_api_key", message)
    if not secret_matches(token, sim.api_key):
        raise _refusal(401, "invalid_api_key", "API key is invalid.")


def _recipients(value: Any) -> tuple[str, ...]:
    if value is None:
        raise ValidationError("Missing `to` field.")
    recipients = [value] if isinstance(value, str) else value
    if not isinstance(recipients, list) or not recipients:
        raise ValidationError("The `to` field must be an email address or a non-empty list of them.")
    if len(recipients) > MAX_RECIPIENTS:
        raise ValidationError(f"The `to` field accepts at most {MAX_RECIPIENTS} addresses.")
    for address in recipients:
        if not isinstance(address, str) or not is_plausible_address(address):
            raise ValidationError(
                f"Invalid `to` field. {json.dumps(address)} is not a valid email address; "
                "it needs to follow the `email@example.com` format."
            )
    return tuple(recipients)


def _tags(value: Any) -> list[dict[str, str]]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_TAGS:
        raise ValidationError(
            f"The `tags` field must be a list of at most {MAX_TAGS} {{name, value}} objects."
        )
    for tag in value:
        if not isinstance(tag, dict) or set(tag) != {"name", "value"}:
            raise ValidationError("Each tag must be an object with exactly `name` and `value`.")
        for part in ("name", "value"):
            if not isinstance(tag[part], str) or not TAG_PART.fullmatch(tag[part]):
                raise ValidationError(
                    f"Invalid tag {part} {json.dumps(tag[part])}: it can only contain ASCII letters "
                    "(a-z, A-Z), numbers (0-9), underscores (_), or dashes (-), and at most 256 of them."
                )
    return value


def _refusal(
    status: int, name: str, message: str, headers: dict[str, str] | None = None, fault: str | None = None
) -> Refusal:
    return Refusal(error_response(status, name, message, headers), name, fault)


def _outcome(refusal: Refusal) -> Outcome:
    return Outcome(refusal.response, refusal.name)
