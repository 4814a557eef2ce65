"""Logs as JSON lines that follow one event: every line written while an event is handled
carries its event_id and order_id (and, in the worker, notification_id and attempt), so one
id finds the event in the API's, the relay's, the worker's and the mail provider's logs."""

import contextlib
import contextvars
import logging

from pythonjsonlogger.json import JsonFormatter

_context: contextvars.ContextVar[dict | None] = contextvars.ContextVar("log_context", default=None)


@contextlib.contextmanager
def log_context(**fields):
    """Add fields to every log line written inside the block (and in what it calls)."""
    token = _context.set(
        {**(_context.get() or {}), **{k: str(v) for k, v in fields.items() if v is not None}}
    )
    try:
        yield
    finally:
        _context.reset(token)


def log_context_add(**fields) -> None:
    """Add fields for the rest of the current context (e.g. once the attempt is known)."""
    _context.set({**(_context.get() or {}), **{k: str(v) for k, v in fields.items() if v is not None}})


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in (_context.get() or {}).items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class JsonLinesFormatter(JsonFormatter):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", False)
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(processName)s %(process)d %(message)s", *args, **kwargs
        )
