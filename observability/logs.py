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


def log_context_add(**fields: object) -> None:
    """Add fields for the rest of the current context (e.g. once the attempt is known)."""
    _context.set({**(_context.get() or {}), **{k: str(v) for k, v in fields.items() if v is not None}})


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in (_context.get() or {}).items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


# local@domain.tld, also URL-encoded (%40, as in a logged query string). The top-level domain
# must be letters, so host:port@127.0.0.1 and Celery's node names (worker@host) stay readable.
_EMAIL = re.compile(
    r"(?P<first>[A-Za-z0-9_%+-])[A-Za-z0-9._%+-]*"
    r"(?P<at>@|%40)(?P<domain>(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,})\b"
)
# Attributes every LogRecord has; anything else on a record came from `extra=` or a filter.
_RECORD_ATTRIBUTES = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
}


def email_addresses_mask(text: str) -> str:
    """`ada.lovelace@example.com` -> `a***@example.com`: the domain stays, as it tells a
    provider problem with one domain from a general one."""
    return _EMAIL.sub(lambda m: f"{m['first']}***{m['at']}{m['domain']}", text)


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
                if _EMAIL.search(text):
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
