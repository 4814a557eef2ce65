"""The messages waiting in an email queue, taken along by the delivery task that runs first.

Under load the event task that a worker runs for one email takes the messages waiting behind
it in the same work queue (up to DELIVERY_BATCH_SIZE in all), so one claim transaction, one
round of provider calls and one outcome transaction serve them all (notifications/delivery/
handler.py). It takes them with kombu's `Queue.get` (AMQP basic.get, unacknowledged) on a
connection of its own pool process, and acks each only after its outcome committed
(messaging/worker/batch_execution.py). At low load the queue is empty and a task runs alone.

If the process dies, its connection closes and RabbitMQ puts every message it had taken back
into the queue, marked redelivered, as Celery's `reject_on_worker_lost` does for the task's
own message. A redelivered message never joins a batch: it runs alone, after the batch, so
one message that kills its process takes only itself down the next time.

A message that is not an event delivery Celery could run (no task header, a body that does not
decode, a task this worker does not have, or one past its expiry) goes to the dead-letter queue
with its reason, as the worker's consumer does for those it receives (messaging/worker/
consumer.py).
"""

import inspect
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum
from typing import Any

from celery import Task
from celery.app.task import Context
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from kombu import Queue
from kombu.message import Message

from messaging.worker.failures import (
    expired_reason,
    failure_reason,
    task_body_problem,
    task_headers_problem,
    unknown_task_reason,
)
from messaging.worker.fetch_connection import fetch_connection, fetch_connection_drop
from messaging.worker.left_behind import message_dead_letter, message_give_back

logger = logging.getLogger(__name__)

# Celery's delayed delivery counts whole seconds, so a retry may arrive up to a second before
# its ETA; Celery's worker would hold it that long, a batch runs it at once.
EARLY_BY_AT_MOST = timedelta(seconds=1)


@dataclass
class Companion:
    """A message taken from the queue, and the request Celery would have given its task."""

    message: Message
    request: Context
    envelope: object


class GivenBack(Enum):
    GIVEN_BACK = "given back"


GIVEN_BACK = GivenBack.GIVEN_BACK


@dataclass
class Taken:
    batch: list[Companion] = field(default_factory=list)
    alone: list[Companion] = field(default_factory=list)  # redelivered: each runs on its own


def companions_take(task: Task, *, queue: str, limit: int, hostname: str) -> Taken:
    """Up to `limit` messages waiting in `queue`, for a batch with `task`'s own message.
    Stops at an empty queue, and after a redelivered message (so that one runs alone while
    the batch is still small), and at a message for another task, which it gives back to the
    broker for the worker's consumer. Raises only the soft time limit: if the broker cannot
    be asked, the task runs alone."""
    taken = Taken()
    if limit <= 0:
        return taken
    try:
        bound = Queue(queue, no_declare=True).bind(fetch_connection(task).default_channel)
        while len(taken.batch) < limit:
            message = bound.get(no_ack=False, accept=["json"])
            if message is None:
                break
            companion = _companion_of(task, message, queue, hostname)
            if companion is GIVEN_BACK:
                break  # asking again would get it again
            if companion is None:
                continue  # dead-lettered with its reason, or published again for its ETA
            if (message.delivery_info or {}).get("redelivered"):
                taken.alone.append(companion)
                break
            taken.batch.append(companion)
            if (message.delivery_info or {}).get("message_count") == 0:
                break  # basic.get-ok says none is left: spare the round trip that would say so
    except SoftTimeLimitExceeded:
        fetch_connection_drop()  # what it had taken goes back to the queue
        raise
    except Exception:
        # Closing the connection puts what it had taken back into the queue, for another
        # delivery; this task runs its own message alone.
        logger.warning("could not take waiting messages from %s: the task runs alone", queue, exc_info=True)
        fetch_connection_drop()
        return Taken()
    return taken


def companions_return(count: int) -> None:
    """Give every message this process has taken and not settled back to the broker, which
    delivers them again (marked redelivered, so each runs alone): closing the connection they
    were taken on does it, as it does when the process dies. Used when a batch ended before
    each was settled (the time limit, a broker that would not take an ack)."""
    logger.warning("%d messages taken along were not settled: the broker delivers them again", count)
    fetch_connection_drop()


def _companion_of(task: Task, message: Message, queue: str, hostname: str) -> Companion | GivenBack | None:
    """The message as a delivery for the batch, or None once it is settled: dead-lettered
    with the reason the worker's consumer or Celery's request would give (the same checks,
    messaging/worker/failures.py), or published again for its ETA. GIVEN_BACK for a message
    of a task this worker has that is not an event delivery: requeued, for the worker's
    consumer to run as it would have."""
    headers = message.headers or {}
    problem = task_headers_problem(headers, tasks=task.app.tasks)
    if problem is not None:
        message_dead_letter(message, problem, "malformed", hostname)
        return None
    name = headers["task"]
    runner = task.app.tasks.get(name)
    if runner is None:
        message_dead_letter(message, unknown_task_reason(name), "unknown_task", hostname)
        return None
    if not getattr(runner, "runs_event_deliveries", False):
        message_give_back(message, queue)
        return GIVEN_BACK
    try:
        body = message.decode()
    except Exception as exc:
        message_dead_letter(message, *failure_reason(exc, content_type=message.content_type), hostname)
        return None
    problem = task_body_problem(body)
    if problem is not None:
        message_dead_letter(message, problem, "malformed", hostname)
        return None
    args, kwargs, embed = body
    try:
        call = inspect.signature(runner.run).bind(*args, **kwargs)  # as the call would: a TypeError
    except TypeError as exc:
        message_dead_letter(message, *failure_reason(exc, content_type=message.content_type), hostname)
        return None
    now, expires, eta = datetime.now(UTC), _moment(headers.get("expires")), _moment(headers.get("eta"))
    if expires is not None and now > expires:
        message_dead_letter(message, expired_reason(expires), "expired", hostname)
        return None
    request = _request_of(message, args, kwargs, embed, hostname)
    if eta is not None and eta > now + EARLY_BY_AT_MOST and _scheduled_again(runner, request, queue, eta):
        message.ack()
        return None
    return Companion(message=message, request=request, envelope=call.arguments["envelope"])


def _scheduled_again(runner: Task, request: Context, queue: str, eta: datetime) -> bool:
    """A message due later (Celery's worker would hold it until its ETA) goes back to the
    broker as the same task for the same moment; if it cannot, it runs now, early, which
    no delivery's correctness depends on (a retry early finds what it found before)."""
    try:
        runner.signature_from_request(
            request, queue=queue, eta=eta, confirm_timeout=settings.TASK_RETRY_CONFIRM_TIMEOUT_SECONDS
        ).apply_async()
    except Exception:
        logger.warning(
            "could not schedule message %s again for %s: it runs now", request.id, eta, exc_info=True
        )
        return False
    return True


def _request_of(message: Message, args: Any, kwargs: Any, embed: Any, hostname: str) -> Context:
    """The task request Celery's worker builds from a message of its protocol 2 (its headers,
    the delivery's routing, the body's arguments), as `self.request` would hold it."""
    delivery_info, properties = message.delivery_info or {}, message.properties or {}
    return Context(
        {
            **(message.headers or {}),
            "properties": properties,
            "reply_to": properties.get("reply_to"),
            "correlation_id": properties.get("correlation_id"),
            "hostname": hostname,
            "delivery_info": {
                "exchange": delivery_info.get("exchange"),
                "routing_key": delivery_info.get("routing_key"),
                "priority": properties.get("priority"),
                "redelivered": delivery_info.get("redelivered", False),
            },
            "args": args,
            "kwargs": kwargs,
            "is_eager": False,  # whatever a header says, as Celery's worker sets it (celery/app/trace.py)
            **(embed or {}),  # Celery's fields only (task_body_problem)
        }
    )


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
