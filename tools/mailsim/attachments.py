"""Attachments as the wires carry them: a list of objects, each a file name, its content in
base64 and (Resend, Postmark) its media type. Each is kept whole, and listed by what tells
one file from another: name, type, size and SHA-256 (``GET /_sim/messages`` shows these, and
``GET /_sim/messages/<id>/attachments/<n>`` gives the bytes back)."""

import base64
import binascii
import hashlib
import mimetypes
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from tools.mailsim.validation import ValidationError


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    content: bytes

    def describe(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "content_type": self.content_type,
            "size": len(self.content),
            "sha256": hashlib.sha256(self.content).hexdigest(),
        }


def read_attachments(
    value: Any, field: str, name_key: str, content_key: str, type_key: str | None = None
) -> tuple[Attachment, ...]:
    """The attachments of a wire's `field`; without a type (Brevo), the name's extension
    gives it, as the provider does."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ValidationError(f"`{field}` must be a list of objects.")
    return tuple(_attachment(item, field, name_key, content_key, type_key) for item in value)


def _attachment(
    item: dict[str, Any], field: str, name_key: str, content_key: str, type_key: str | None
) -> Attachment:
    name, content = item.get(name_key), item.get(content_key)
    if not isinstance(name, str) or not name.strip():
        raise ValidationError(f"Each of `{field}` needs a non-empty `{name_key}`.")
    if not isinstance(content, str):
        # A provider's remote-file form (a URL to fetch) is not simulated: refused as invalid.
        raise ValidationError(
            f"{name!r} in `{field}` needs its `{content_key}` in base64 (URLs are not fetched)."
        )
    try:
        data = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationError(f"The `{content_key}` of {name!r} is not valid base64.") from None
    given = item.get(type_key) if type_key else None
    if given is not None and not isinstance(given, str):
        raise ValidationError(f"The `{type_key}` of {name!r} must be a string.")
    content_type = given or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return Attachment(name, content_type, data)


def content_path(message_id: str, position: int) -> str:
    return f"/_sim/messages/{quote(message_id, safe='')}/attachments/{position}"
