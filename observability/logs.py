"""Logs as JSON lines that follow one event: every line written while an event is handled
carries its event_id and order_id (and, in the worker, notification_id and attempt), so one
id finds the event in the API's, the relay's, the worker's and the mail provider's logs.

No line carries a customer's email address: EmailMaskingFilter masks anything shaped like
one (the ids are enough to find the order, and the database has the address)."""

import contextlib
import contextvars
import logging
import re
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from django.core.validators import EmailValidator
from pythonjsonlogger.json import JsonFormatter

_context: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("log_context", default=None)
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]


@contextlib.contextmanager
def log_context(**fields: object) -> Iterator[None]:
    """Add fields to every log line written inside the block (and in what it calls)."""
    token = _context.set(
        {**(_context.get() or {}), **{k: str(v) for k, v in fields.items() if v is not None}}
    )
    try:
        yield
    finally:
        _context.reset(token)


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in (_context.get() or {}).items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


# Where an address can be: after each "@" (or "%40" in a logged URL) a domain of every form
# the API's validator (Django's EmailValidator) accepts: a dotted name, Unicode or punycode, an
# IP literal in brackets, or the allow-listed "localhost". The name pieces are Django's own, so
# the masking follows the validator. A bare host (`worker@vm`, Celery's node names) or a bare
# IP (`guest:**@127.0.0.1`, a broker URL) is no address the API takes and stays readable.
_DOMAIN = re.compile(
    "|".join(
        [
            EmailValidator.hostname_re + EmailValidator.domain_re + EmailValidator.tld_no_fqdn_re,
            r"\[[A-F0-9:.]+\]",
            *(rf"{re.escape(name)}(?![\w-]|\.[\w-])" for name in EmailValidator.domain_allowlist),
        ]
    ),
    re.IGNORECASE,
)
# In a percent-encoded URL (an access log's request line) a Unicode domain is UTF-8 bytes as
# %XX and an IP literal's brackets are %5B, %5D.
_URL_LABEL = r"(?:[A-Z0-9-]|%[89A-F][0-9A-F])+"
_URL_DOMAIN = re.compile(
    rf"{_URL_LABEL}(?:\.{_URL_LABEL})*\.(?:[A-Z-]|%[89A-F][0-9A-F]){{2,}}"
    r"|%5B(?:[0-9A-F:.]|%3A)+%5D"
    r"|localhost(?![\w-]|\.[\w-])",
    re.IGNORECASE,
)
_AT = re.compile(r"@|%40")
# The local part before it, found backwards from the "@": a dot-atom (which also covers the
# percent-encoded form of a logged URL), a quoted string, or a quoted string whose quotes were
# escaped once more by a JSON text inside the log line. Django caps an address at 320
# characters, so looking back that far finds the longest local part, in bounded time.
_ATOM = r"[-!#$%&'*+/=?^_`{}|~0-9A-Z]"
_LOCAL = re.compile(rf'(?:"(?:[^"\\\r\n]|\\.)*"|\\"[^"\r\n]*\\"|{_ATOM}+(?:\.{_ATOM}+)*)\Z', re.IGNORECASE)
_LOOK_BACK = 320
# A JSON \uXXXX escape of a character a domain may hold (Django's range, U+00A1 to U+FFFF),
# surrogates excepted: json.dumps writes münchen.de as m\u00fcnchen.de.
_JSON_LETTER = re.compile(
    r"\\u("
    r"00[aA][1-9a-fA-F]|00[b-fB-F][0-9a-fA-F]"  # U+00A1 to U+00FF
    r"|0[1-9a-fA-F][0-9a-fA-F]{2}"  # U+0100 to U+0FFF
    r"|(?![dD][89a-fA-F])[1-9a-fA-F][0-9a-fA-F]{3}"  # U+1000 to U+FFFF but the surrogates
    r")"
)
# Around an address in a log line these usually come from repr() or the message's own
# quoting; they stay outside the mask so the line still reads. In a percent-encoded URL an
# address's own "=", "&", "?" or "/" would be encoded too, so there they end a query's name.
_OPENING = re.compile(r"['`{]+")
_URL_OPENING = re.compile(r".*[=&?/]|(?:%2[27])+", re.IGNORECASE)
# Attributes every LogRecord has; anything else on a record came from `extra=` or a filter.
_RECORD_ATTRIBUTES = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
}


def email_addresses_mask(text: str) -> str:
    """`ada.lovelace@example.com` -> `a***@example.com`, `"ada lovelace"@example.com` ->
    `"a***"@example.com`: the domain stays, as it tells a provider problem with one domain
    from a general one; of the local part only its first character."""
    if "@" not in text and "%40" not in text:
        return text
    if "\\u" in text:  # a JSON text inside the line, its letters escaped: read them as letters
        unescaped = _JSON_LETTER.sub(lambda m: chr(int(m[1], 16)), text)
        masked = _addresses_mask(unescaped)
        return text if masked == unescaped else masked
    return _addresses_mask(text)


def _addresses_mask(text: str) -> str:
    out: list[str] = []
    done = 0
    for at in _AT.finditer(text):
        if at.start() < done:
            continue
        url_encoded = at.group() != "@"
        domain = (_URL_DOMAIN if url_encoded else _DOMAIN).match(text, at.end())
        local = _LOCAL.search(text, max(done, at.start() - _LOOK_BACK), at.start())
        if domain is None or local is None:
            continue
        out += [
            text[done : local.start()],
            _local_part_mask(local.group(), url_encoded=url_encoded),
            at.group(),
            domain.group(),
        ]
        done = domain.end()
    return "".join(out) + text[done:] if out else text


def _local_part_mask(local: str, *, url_encoded: bool) -> str:
    for quote in ('\\"', '"'):
        if local.startswith(quote) and len(local) > 2 * len(quote):
            return f"{quote}{local[len(quote)]}***{quote}"
    opening = (_URL_OPENING if url_encoded else _OPENING).match(local)
    kept = opening.end() if opening and opening.end() < len(local) else 0
    return f"{local[:kept]}{local[kept]}***"


def email_address_in(text: str) -> bool:
    return email_addresses_mask(text) != text


class EmailMaskingFilter(logging.Filter):
    """Masks email addresses in the message, its arguments, the extra fields and the
    exception text of every record that passes (attach it to the handlers, so records of
    every logger are covered, Celery's and gunicorn's included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        record.msg, record.args = email_addresses_mask(message), ()
        for name, value in list(record.__dict__.items()):
            if name not in _RECORD_ATTRIBUTES and value is not None:
                text = value if isinstance(value, str) else str(value)
                if email_address_in(text):
                    setattr(record, name, email_addresses_mask(text))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            # Formatters print exc_text when it is set, so the masked text is what goes out.
            # exc_info stays: other handlers (an error tracker, the tests) need the exception
            # itself; the JSON formatter below masks what it formats from it.
            record.exc_text = email_addresses_mask(record.exc_text)
        if record.stack_info:
            record.stack_info = email_addresses_mask(record.stack_info)
        return True


class JsonLinesFormatter(JsonFormatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", False)
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(processName)s %(process)d %(message)s", *args, **kwargs
        )

    def formatException(self, ei: ExcInfo) -> str:
        # python-json-logger formats the exception from exc_info, not from exc_text.
        formatted = super().formatException(ei)
        assert isinstance(formatted, str)  # a list of lines only with exc_info_as_array, never set here
        return email_addresses_mask(formatted)
