"""The characters that arrive from outside and that no text column can hold: NUL (PostgreSQL's
text and jsonb refuse U+0000) and the UTF-16 surrogates U+D800 to U+DFFF (Python's json reads
a lone "\\ud800" escape as one; it is no character, so it cannot be written as UTF-8 for the
database, a response or a file). Python's json joins a correct pair into one character, so any
surrogate left in a str is one of these.

What is read field by field refuses them, naming the field (intake/payload_fields.py); what
must be kept whatever it holds (a delivery's body, a provider's event, an export of what was
kept) has each replaced by U+FFFD, the replacement character."""

import re
from typing import Any

REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_character(text: str) -> str | None:
    """The first character of `text` that no text column holds, or None."""
    found = _UNSTORABLE.search(text)
    return found.group() if found else None


def unstorable_named(character: str) -> str:
    """The character in words, for a reason a person reads."""
    if character == "\x00":
        return "U+0000 (NUL), which no text may hold"
    return f"U+{ord(character):04X}, half of a UTF-16 pair on its own, which is no character"


def storable(text: str) -> str:
    return _UNSTORABLE.sub(REPLACEMENT, text)


def storable_json(value: Any) -> Any:
    """A parsed JSON value with every string in it, keys too, made storable. The callers parse
    only what infra/json_nesting.py let through, so the recursion is as shallow as the value."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable(k) if isinstance(k, str) else k: storable_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable_json(item) for item in value]
    return value
