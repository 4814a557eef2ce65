"""Validation of the ``POST /emails`` body, done before the idempotency key is touched.

Rejected bodies never take the key, so a client that fixes its payload can retry with the same key.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any

# Resend's documented per-request recipient limit.
MAX_RECIPIENTS = 50


class ValidationError(ValueError):
    pass


@dataclass(frozen=True)
class EmailRequest:
    sender: str
    recipients: tuple[str, ...]
    subject: str
    text: str | None
    html: str | None
    fingerprint: str


def parse_email(body: bytes) -> EmailRequest:
    payload = _load_object(body)
    sender = _required_string(payload, "from")
    recipients = _recipients(payload.get("to"))
    subject = _required_string(payload, "subject")
    text = _optional_string(payload, "text")
    html = _optional_string(payload, "html")
    if text is None and html is None:
        raise ValidationError("Missing `text` or `html` field.")
    return EmailRequest(sender, recipients, subject, text, html, fingerprint(payload))


def fingerprint(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def is_plausible_address(address: str) -> bool:
    if address.count("@") != 1 or any(char.isspace() for char in address):
        return False
    local, _, domain = address.partition("@")
    labels = domain.split(".")
    return bool(local) and len(labels) > 1 and all(labels)


def _load_object(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except ValueError:
        raise ValidationError("The request body is not valid JSON.") from None
    if not isinstance(payload, dict):
        raise ValidationError("The request body must be a JSON object.")
    return payload


def _required_string(payload: dict[str, Any], name: str) -> str:
    value = payload.get(name)
    if value is None:
        raise ValidationError(f"Missing `{name}` field.")
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"The `{name}` field must be a non-empty string.")
    return value


def _optional_string(payload: dict[str, Any], name: str) -> str | None:
    value = payload.get(name)
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"The `{name}` field must be a string.")
    return value


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
