"""The retry of an event delivery: what its message carries (delay, retry number, headers,
queue), the one rule for the event task's own delivery (messaging/tasks.py) and for each one it
took along into its batch (messaging/worker/batch_execution.py); and a retry the broker refused,
told apart from a failure of ours."""

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from amqp.exceptions import MessageNacked
from celery import Task
from celery.app.task import Context
from celery.exceptions import Reject
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from messaging.broker.headers import BROKER_DELIVERY_HEADERS
from messaging.errors import HandlingError, InFlightError, RetryNotPublishedError, TransientError, WaitError
from messaging.registry import EventType, event_types
from messaging.retry_policy import (
    IN_FLIGHT_DELAY_SECONDS,
    budget_spent,
    retry_budget,
    retry_delay_seconds,
    retry_max_delay_seconds,
    retry_since_header,
    retry_since_of,
)

# What the event task retries (its autoretry_for); a batch's delivery is settled the same way.
# A database that is briefly away is transient too: nothing was recorded, so retry.
RETRIED_ERRORS = (TransientError, OperationalError, InterfaceError)
# What a publish raises when the broker refused the message (a nack), did not confirm it in
# time, or could not be reached: kombu's OperationalError wraps the connection's errors.
BROKER_REFUSALS = (KombuOperationalError, MessageNacked, TimeoutError, ConnectionError)


@dataclass(frozen=True)
class RetryPlan:
    retries: int  # the retry number the retry message carries
    countdown: float | None  # None when the caller gave an ETA
    headers: dict[str, Any]
    queue: str | None  # the event type's work queue (through orders.retry, keyed by its name)
    budget_spent: bool  # no retry: the failure stands


def retry_plan(
    request: Context,
    exc: BaseException | None,
    *,
    countdown: float | None = None,
    eta: datetime | None = None,
) -> RetryPlan:
    """How the delivery of `request` that failed with `exc` comes back."""
    event_type = _event_type_of(request.args)
    # Not RabbitMQ's headers of this trip (messaging/broker/headers.py), as Celery itself.
    headers = {k: v for k, v in (request.headers or {}).items() if k not in BROKER_DELIVERY_HEADERS}
    waiting, retries = isinstance(exc, InFlightError | WaitError), request.retries + 1
    if isinstance(exc, InFlightError | WaitError):
        # Whole seconds, at least 1: Celery's delayed-delivery queues count whole seconds,
        # and a message they deliver before its ETA is held by the worker's timer instead.
        in_flight = isinstance(exc, InFlightError)
        countdown = IN_FLIGHT_DELAY_SECONDS if in_flight else math.ceil(exc.retry_after or 1)
        # Waiting for another worker's lease, or for a provider that takes no calls, is not
        # a failed attempt: the next message keeps this retry number and its budget (the
        # first failure's time moves by the wait). Leases expire and circuits close, so this
        # ends; an operator's pause lasts until resumed.
        retries = max(1, request.retries)
    elif countdown is None and eta is None:
        retry_after, cap = getattr(exc, "retry_after", None), retry_max_delay_seconds(event_type)
        countdown = retry_delay_seconds(retry_number=retries, retry_after=retry_after, max_delay_seconds=cap)
    now = timezone.now()
    return RetryPlan(
        retries=retries,
        countdown=countdown,
        # The retry budget counts from the first failure; the retry message carries its time.
        headers=retry_since_header(headers, now, waiting=waiting),
        queue=event_type.queue if event_type is not None else None,
        # Every handler's retries end with its type's budget (the email handler decides it
        # before, on its own: its outcome says "gave up"); the count is only a safety cap.
        budget_spent=not waiting
        and budget_spent(retry_since=retry_since_of(headers, now), budget=retry_budget(event_type), now=now),
    )


def retry_publish(task: Task, request: Context, exc: Exception) -> None:
    """Publish the retry of a delivery taken along into another's batch, the way Celery's
    worker publishes the retry of a task whose process was lost (celery/worker/request.py):
    a signature made from the message's own request (the same task id and arguments) with
    the plan's delay, number and headers, sent with apply_async. Raises `exc` when no retry
    is left, and Reject(requeue=False) when the retry could not be published, as Task.retry."""
    plan = retry_plan(request, exc)
    if plan.budget_spent or (task.max_retries is not None and plan.retries > task.max_retries):
        raise exc
    signature = task.signature_from_request(
        request,
        # As when the task retries its own message: Celery names the running task as the
        # parent of what it sends, and here that is another message's task.
        root_id=request.root_id or request.id,
        parent_id=request.parent_id or request.id,
        queue=plan.queue,
        countdown=plan.countdown,
        retries=plan.retries,
        headers=plan.headers,
        confirm_timeout=settings.TASK_RETRY_CONFIRM_TIMEOUT_SECONDS,
    )
    try:
        signature.apply_async()
    except Exception as publish_error:
        raise Reject(retry_refusal(publish_error, exc), requeue=False) from publish_error


def retry_refusal(publish_error: Exception, exc: BaseException | None) -> Exception:
    """What a failed publish of a retry is dead-lettered as. Celery turns any error of it into
    Reject(requeue=False) (celery/app/task.py, Task.retry), which the dead letter would call
    "permanent". When the broker refused it, did not confirm it or was out of reach, say so,
    so an operator replays it once the broker is healthy; any other error (a routing or
    encoding fault of ours) stays as it was. Before giving up, kombu has already published it
    again up to Celery's publish retry policy (three more times), so a copy may yet arrive:
    the inbox makes that harmless."""
    if not isinstance(publish_error, BROKER_REFUSALS):
        return publish_error
    failure = exc.reason if isinstance(exc, HandlingError) else str(exc)
    return RetryNotPublishedError(
        f"The broker refused or did not confirm this delivery's retry ({_error_chain(publish_error)}). "
        f"The failure that called for the retry: {failure} Replay it once the broker takes messages "
        "again; if the retry arrived after all, the replay finds the email done."
    )


def _error_chain(error: BaseException | None) -> str:
    """For example "OperationalError, caused by MessageNacked": kombu wraps what py-amqp raised
    (`raise … from`); the implicit context would name the delivery's own failure, which came
    first."""
    names: list[str] = []
    while error is not None and len(names) < 3:
        names.append(type(error).__name__ + (f": {error}" if str(error) else ""))
        error = error.__cause__
    return ", caused by ".join(names)


def _event_type_of(args: Any) -> EventType | None:
    envelope = (args or [None])[0]
    name = envelope.get("event_type") if isinstance(envelope, dict) else None
    return event_types().get(name) if isinstance(name, str) else None
