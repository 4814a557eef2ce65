"""Field checks shared by the send wires; each wire turns a ``ValidationError`` into its own error body.

Bodies are validated before the idempotency key is touched: rejected bodies never take the key,
so a client that fixes its payload can retry with the same key.
"""

import hashlib
import json
from typing import Any


class ValidationError(ValueError):
    pass


def fingerprint(payload: Any) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def is_plausible_address(address: str) -> bool:
    if address.count("@") != 1 or any(char.isspace() for char in address):
        return False
    local, _, domain = address.partition("@")
    labels = domain.split(".")
    return bool(local) and len(labels) > 1 and all(labels)


def load_object(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except ValueError:
        raise ValidationError("The request body is not valid JSON.") from None
    if not isinstance(payload, dict):
        raise ValidationError("The request body must be a JSON object.")
    return payload


def required_string(payload: dict[str, Any], name: str) -> str:
    value = payload.get(name)
    if value is None:
        raise ValidationError(f"Missing `{name}` field.")
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"The `{name}` field must be a non-empty string.")
    return value


def optional_string(payload: dict[str, Any], name: str) -> str | None:
    value = payload.get(name)
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"The `{name}` field must be a string.")
    return value


def string_map(payload: dict[str, Any], name: str) -> dict[str, str]:
    """An optional object whose values are all strings (custom headers), ``{}`` when absent."""
    value = payload.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise ValidationError(f"The `{name}` field must be an object with string values.")
    return value


def string_list(value: Any, name: str) -> list[str]:
    """A string or a list of strings (reply-to addresses), always returned as a list."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) and item for item in items):
        raise ValidationError(f"The `{name}` field must be a string or a list of strings.")
    return items
