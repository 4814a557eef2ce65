"""Reasons in plain words for messages that fail before or outside our handler's own
classification (the handler's errors carry their reason with them)."""

from datetime import datetime

from celery.exceptions import Reject
from kombu.exceptions import ContentDisallowed, DecodeError

from messaging.errors import HandlingError


def failure_reason(exc: BaseException, *, content_type: str | None) -> tuple[str, str]:
    """(reason, class) for an exception that ended a task."""
    if isinstance(exc, Reject):
        # Celery's Reject keeps its first argument as `reason`; celery-types omits the attribute.
        inner = exc.reason  # type: ignore[attr-defined]
        if isinstance(inner, HandlingError):
            return inner.reason, inner.error_class
        return str(inner), "permanent"
    if isinstance(exc, HandlingError):  # e.g. a transient error that outlived the retries
        return f"{exc.reason} (no retries left)", "retries_exhausted"
    if isinstance(exc, ContentDisallowed):
        return (
            f"The message is encoded as {content_type!r}, which this service never decodes; "
            "only JSON is accepted.",
            "malformed",
        )
    if isinstance(exc, DecodeError | UnicodeDecodeError | ValueError) and _is_decoding(exc):
        return f"The message body could not be decoded as a task message: {exc}", "malformed"
    return f"The task failed with an unexpected error: {type(exc).__name__}: {exc}", "error"


def _is_decoding(exc: BaseException) -> bool:
    # kombu raises DecodeError for bad JSON; a body that is JSON but not [args, kwargs, embed]
    # fails to unpack with a ValueError mentioning "unpack".
    return isinstance(exc, DecodeError | UnicodeDecodeError) or "unpack" in str(exc)


# The reasons the worker's consumer (messaging/worker/consumer.py), its requests
# (messaging/worker/request.py) and a batch's taking of waiting messages (messaging/worker/
# companions.py) give for a message they dead-letter before any handler ran.


def not_a_task_message_reason() -> str:
    return "The message is not a Celery task message (it has no 'task' header)."


def unknown_task_reason(name: object) -> str:
    return (
        f"No task named {name!r} is registered in this worker: the message was sent to the wrong "
        "queue, or by a newer release."
    )


def expired_reason(expires: datetime) -> str:
    return f"The message expired at {expires.isoformat()} before a worker ran it."
