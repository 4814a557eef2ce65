"""Reasons in plain words for messages that fail before or outside our handler's own
classification (the handler's errors carry their reason with them)."""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from celery.exceptions import Reject
from django.conf import settings
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
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
    if isinstance(exc, DatabaseOperationalError | DatabaseInterfaceError):  # retried until now
        detail = " ".join(str(exc).split())
        reason = f"The database did not answer or refused the work: {detail} (no retries left)"
        return reason, "retries_exhausted"
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


# What a task message's headers and request may hold, as this service's relay writes them
# (Celery's protocol 2). Checked before Celery or a batch takes a message: Celery's consumer
# raises out of its handler on some malformed headers (a `task` header that is a list, no
# `id`), leaving the message unacknowledged and its prefetch slot taken, and a `retries` that
# is not a number fails the handler only after its emails went out.
_OPTIONAL_TEXT_HEADERS = ("root_id", "parent_id", "group", "shadow", "argsrepr", "kwargsrepr")
_MOMENT_HEADERS = ("eta", "expires")


def task_headers_problem(headers: object, *, tasks: Mapping[str, Any]) -> str | None:
    """Why a message's headers are not those of a task message this service could run, in
    plain words; None when they are. `tasks`: the worker's registered tasks by name (their
    time limits bound the message's)."""
    if not isinstance(headers, dict) or "task" not in headers:
        return not_a_task_message_reason()
    problem = _text_problem(headers, "task", required=True)
    if problem:
        return problem
    problems = [
        _text_problem(headers, "id", required=True),
        _count_problem(headers.get("retries"), "retries"),
        *(_text_problem(headers, name) for name in _OPTIONAL_TEXT_HEADERS),
        *(_moment_problem(headers.get(name), name) for name in _MOMENT_HEADERS),
        _time_limits_problem(headers.get("timelimit"), tasks.get(headers["task"])),
        _stamps_problem(headers.get("stamped_headers"), headers.get("stamps")),
        _table_problem(headers.get("headers"), "headers"),
        *(_other_tasks_problem(headers.get(name), name) for name in sorted(EMBED_FIELDS)),
    ]
    return next((problem for problem in problems if problem), None)


# The third part of a task message's body, as Celery's protocol 2 writes it. Celery lets it
# set any field of the task's request: one saying `is_eager` would retry inside the worker's own
# process, one with `retries` or `delivery_info` would mislead the retry budget and the batch,
# and callbacks, errbacks, a chain or a chord start other tasks (Celery's failure path sends
# a failed task's errbacks; a chain that is not well formed made it raise in the worker's main
# process, leaving the message unsettled).
EMBED_FIELDS = frozenset({"callbacks", "errbacks", "chain", "chord"})


def task_body_problem(body: object) -> str | None:
    """Why a decoded message body is not [args, kwargs, options] as this service sends it, in
    plain words; None when it is."""
    if not (isinstance(body, list | tuple) and len(body) == 3):
        return f"The message body is {_shown(body)}, not a task's three parts [args, kwargs, options]."
    args, kwargs, embed = body
    if not isinstance(args, list | tuple) or not isinstance(kwargs, dict):
        return "The message body's arguments are not a list and a table."
    if embed is None:
        return None
    if not isinstance(embed, dict):
        return f"The message body's third part is {_shown(embed)}, not a table."
    unknown = sorted(repr(name) for name in embed if name not in EMBED_FIELDS)
    if unknown:
        return (
            f"The message body's third part sets {', '.join(unknown)}, which only the worker may set "
            "(it would change how the task runs or is retried)."
        )
    asked = sorted(name for name in EMBED_FIELDS if embed.get(name))
    return _other_tasks_reason(asked) if asked else None


def _other_tasks_reason(names: list[str]) -> str:
    return (
        f"The message asks to run other tasks with this one ({', '.join(names)}); this service "
        "never sends such messages."
    )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _text_problem(headers: dict, name: str, *, required: bool = False) -> str | None:
    value = headers.get(name)
    if value is None and not required:
        return None
    if isinstance(value, str) and (value or not required):
        return None
    return f"The message's {name!r} header is {_shown(value)}, not a {'non-empty ' if required else ''}text."


def _count_problem(value: object, name: str) -> str | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return None
    return f"The message's {name!r} header is {_shown(value)}, not a whole number of 0 or more."


def _moment_problem(value: object, name: str) -> str | None:
    if value is None:
        return None
    try:
        if isinstance(value, str):
            datetime.fromisoformat(value)
            return None
    except ValueError:
        pass
    return f"The message's {name!r} header is {_shown(value)}, not an ISO 8601 time."


def _time_limits_problem(value: object, task: Any) -> str | None:
    # A message may shorten its task's time limits, never lengthen them: a delivery that ran
    # past the hard limit could outlive its notification's lease (notifications.checks). Celery
    # writes a task's own limits into its messages (the retention job's 1900 s, say); a task
    # this worker lacks is Celery's to report.
    longest = (getattr(task, "time_limit", None) or settings.CELERY_TASK_TIME_LIMIT) if task else float("inf")

    def is_limit(limit: object) -> bool:
        return limit is None or (
            isinstance(limit, int | float) and not isinstance(limit, bool) and 0 < limit <= longest
        )

    if value is None or (isinstance(value, list | tuple) and len(value) == 2 and all(map(is_limit, value))):
        return None
    return (
        f"The message's 'timelimit' header is {_shown(value)}, not a pair of limits in seconds of at "
        f"most its task's {longest:g}."
    )


def _table_problem(value: object, name: str) -> str | None:
    # Celery keeps a message's custom headers in its request's `headers` field.
    if value is None or isinstance(value, dict):
        return None
    return f"The message's {name!r} header is {_shown(value)}, not a table."


def _other_tasks_problem(value: object, name: str) -> str | None:
    # As a header too: Celery's request reads them from the headers where the body has none.
    if not value:
        return None
    return (
        f"The message asks to run other tasks with this one ({name}); this service never sends such messages."
    )


def _stamps_problem(stamped_headers: object, stamps: object) -> str | None:
    # Celery copies them into a retry's options (Context.as_execution_options).
    if stamped_headers is not None and not (
        isinstance(stamped_headers, list) and all(isinstance(name, str) for name in stamped_headers)
    ):
        return f"The message's 'stamped_headers' header is {_shown(stamped_headers)}, not a list of names."
    if stamps is not None and not isinstance(stamps, dict):
        return f"The message's 'stamps' header is {_shown(stamps)}, not a table."
    return None
