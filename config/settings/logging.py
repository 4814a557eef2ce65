"""The logging configuration: JSON lines by default (one event's id on every line,
observability/logs.py); "plain" reads better in a terminal. No line carries a customer's
address: the masking filter sits on the handler, so every logger's records pass it."""

from typing import Any


def logging_config(*, log_format: str, log_level: str) -> dict[str, Any]:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": "observability.logs.ContextFilter"},
            "mask_emails": {"()": "observability.logs.EmailMaskingFilter"},
        },
        "formatters": {
            "json": {"()": "observability.logs.JsonLinesFormatter"},
            "plain": {"format": "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": log_format,
                "filters": ["context", "mask_emails"],
            },
        },
        "root": {"handlers": ["console"], "level": log_level},
        "loggers": {
            "django.db.backends": {"level": "INFO"},
            "amqp": {"level": "WARNING"},
            "kombu": {"level": "WARNING"},
            # An invoice's render logs each of its steps at INFO; its problems at WARNING.
            "weasyprint": {"level": "WARNING"},
            "fontTools": {"level": "WARNING"},
        },
    }
