"""Attachments at every provider: the one rule for their names and types, the size an email
reaches on a provider's wire, and the refusal of an email over its provider's limit, made
before any call (an email is never sent without its attachment, nor cut down to fit).

Each provider states its own limit and how it counts, with the source, next to its code;
what they share is here: base64's growth (4 bytes for every 3, rounded up; MIME adds a CRLF
every 76 characters) and the words of a refusal.
"""

import base64
import math
import re
import unicodedata
from collections.abc import Callable

from notifications.providers.base import Attachment, OutboundEmail, Outcome, SendResult

# Providers write "MB"; the decimal reading (10^6) is the smaller one, so the safer.
MB = 1000 * 1000
TOO_LARGE = "attachment_too_large"
INVALID = "attachment_invalid"
# A media type as RFC 6838 names one (type/subtype, restricted-name characters): nothing a
# header could be broken with.
MEDIA_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}")
# A path in a name is no part of the file's name; a receiving client would strip it anyway.
PATH_SEPARATORS = str.maketrans({"/": "_", "\\": "_"})


def base64_size(size: int) -> int:
    """The length of `size` bytes in base64, as a JSON API carries them."""
    return 4 * math.ceil(size / 3)


def mime_base64_size(size: int) -> int:
    """The same in a MIME part: lines of 76 characters, each ended by CRLF."""
    encoded = base64_size(size)
    return encoded + 2 * math.ceil(encoded / 76)


def json_api_size(email: OutboundEmail) -> int:
    """An email as an HTTP API counts it: each attachment in base64, with the subject, the
    text and the html in UTF-8."""
    content = sum(len(part.encode()) for part in (email.subject, email.text, email.html))
    return content + sum(base64_size(len(attachment.content)) for attachment in email.attachments)


def base64_content(attachment: Attachment) -> str:
    return base64.b64encode(attachment.content).decode("ascii")


def sendable_filename(attachment: Attachment) -> str:
    """The name the provider gets: a path separator becomes `_`; quotes and any other
    character stay, for the provider's JSON or the MIME encoding of its header to carry."""
    return attachment.filename.translate(PATH_SEPARATORS)


def refused_attachments(
    email: OutboundEmail, provider: str, limit: int, size: Callable[[], int], counted: str
) -> SendResult | None:
    """Why `email` cannot go to `provider` as it is; None when it can (or has no attachments).
    `size()` is asked only once every attachment's name and type passed."""
    return invalid_attachment(email) or too_large(email, provider, limit, size, counted)


def invalid_attachment(email: OutboundEmail) -> SendResult | None:
    for attachment in email.attachments:
        problem = _problem(attachment)
        if problem:
            detail = (
                f"Attachment {attachment.filename!r}: its {problem}; nothing was sent. "
                "The document's name or type must be fixed where the document is made."
            )
            return SendResult(Outcome.PERMANENT, error_code=INVALID, detail=detail)
    return None


def too_large(
    email: OutboundEmail, provider: str, limit: int, size: Callable[[], int], counted: str
) -> SendResult | None:
    if not email.attachments:
        return None
    measured = size()
    if measured <= limit:
        return None
    names = ", ".join(f"{a.filename} ({_megabytes(len(a.content))})" for a in email.attachments)
    detail = (
        f"The email is {_megabytes(measured)} as {provider} counts it ({counted}), over "
        f"{provider}'s limit of {_megabytes(limit)}; nothing was sent. Attached: {names}. "
        "Make the attachments smaller, or send a link to the document instead of the file."
    )
    return SendResult(Outcome.PERMANENT, error_code=TOO_LARGE, detail=detail)


def _problem(attachment: Attachment) -> str:
    name = attachment.filename
    if not name.strip():
        return "name is empty"
    # CR, LF, NUL, any control or line-separating character: one could end a mail header.
    if any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in name):
        return "name holds a control character (a line break, NUL, …)"
    if not MEDIA_TYPE.fullmatch(attachment.content_type):
        return f"type {attachment.content_type!r} is not a media type (type/subtype)"
    return ""


def _megabytes(size: int) -> str:
    return f"{size / MB:.1f} MB ({size:,} bytes)"
