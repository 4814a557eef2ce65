"""What the event task runs: its own delivery, with the messages waiting behind it in an email
queue (messaging/worker/companions.py), as one batch of the dispatcher
(messaging/dispatch.py `events_dispatch_batch`).

The task's own message is settled by Celery, as the task's declaration says (messaging/
tasks.py): its result is returned, its failure raised. Each message taken along is settled
here, by `companion_settle`, with the same rules: acked once its outcome committed; a retry
published (Celery's `retry` rules, messaging/retries.py) and then acked; a permanent failure,
or one with no retry left, copied to the dead-letter queue with its reason and then acked.
"""

import logging
import os

from celery import Task
from celery.app.task import Context
from celery.exceptions import Reject, SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from messaging.dead_lettering import dead_letter_message
from messaging.dispatch import Delivery, events_dispatch_batch
from messaging.errors import PermanentError, TimeLimitError
from messaging.registry import event_types
from messaging.retries import RETRIED_ERRORS, retry_publish
from messaging.retry_policy import retry_since_of
from messaging.worker.companions import Companion, companions_return, companions_take
from messaging.worker.failures import failure_reason

logger = logging.getLogger(__name__)


def deliveries_run(task: Task, request: Context, envelope: object) -> str | BaseException:
    """The result of the task's own delivery (its return value or the exception it raises),
    after every message taken along with it is settled."""
    queue, size = _batch_of(request, envelope)
    taken = companions_take(task, queue=queue, limit=size - 1, hostname=request.hostname or "")
    unsettled = [*taken.batch, *taken.alone]
    try:
        results = events_dispatch_batch(
            [(envelope, delivery_of(task, request))]
            + [(companion.envelope, delivery_of(task, companion.request)) for companion in taken.batch]
        )
        cut = any(isinstance(result, SoftTimeLimitExceeded) for result in results)
        results = [retried_if_cut(result) for result in results]
        for companion, result in zip(taken.batch, results[1:], strict=True):
            if companion_settle(task, companion, result):
                unsettled.remove(companion)
        # After a cut, the seconds left before the hard limit are not a delivery's: a message
        # that was to run alone goes back (finally, below) for another process.
        for companion in [] if cut else taken.alone:
            (result,) = events_dispatch_batch([(companion.envelope, delivery_of(task, companion.request))])
            if companion_settle(task, companion, retried_if_cut(result)):
                unsettled.remove(companion)
        return results[0]
    finally:
        if unsettled:  # not settled (the time limit, the broker): back to the queue, at once
            companions_return(len(unsettled))


def retried_if_cut(result: str | BaseException) -> str | BaseException:
    """The soft time limit as a failure worth trying again (TimeLimitError), not an unexpected
    error for a person: a database or provider that stopped answering for a minute answers
    again later, and the retry finds what the cut delivery had done."""
    if not isinstance(result, SoftTimeLimitExceeded):
        return result
    return TimeLimitError(
        f"The task's soft time limit ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s) ended this delivery "
        "before its outcome was recorded; it is tried again."
    )


def _batch_of(request: Context, envelope: object) -> tuple[str, int]:
    """The email queue whose waiting messages may join this delivery, and how many
    deliveries its batch may hold in all: 1 for a redelivered message (it runs alone) and for
    an event type without a batch handler."""
    if (request.delivery_info or {}).get("redelivered"):
        return "", 1
    name = envelope.get("event_type") if isinstance(envelope, dict) else None
    event_type = event_types().get(name) if isinstance(name, str) else None
    if event_type is None or not event_type.batch_handler:
        return "", 1
    size = min(settings.DELIVERY_BATCH_SIZE, event_type.batch_size_limit() or settings.DELIVERY_BATCH_SIZE)
    return event_type.queue, max(1, size)


def companion_settle(task: Task, companion: Companion, result: str | BaseException) -> bool:
    """Settle a message taken along as Celery settles the task's own (acks_late,
    autoretry_for=RETRIED_ERRORS, Reject to the dead-letter queue); False if it could not be
    settled. Never raises: the caller returns an unsettled message to the broker, which
    delivers it again, and the inbox finds its work done."""
    message = companion.message
    try:
        if not isinstance(result, BaseException):
            message.ack()
            return True
        failure: BaseException = result
        if isinstance(result, RETRIED_ERRORS):
            try:
                retry_publish(task, companion.request, result)
            except BaseException as final:  # no retries left, or the broker refused the retry
                failure = final
            else:
                message.ack()
                return True
        if isinstance(failure, PermanentError):
            failure = Reject(failure, requeue=False)  # as the task raises it (messaging/tasks.py)
        reason, error_class = failure_reason(failure, content_type=message.content_type)
        worker = companion.request.hostname or ""
        if dead_letter_message(message, reason=reason, error_class=error_class, worker=worker):
            message.ack()
        else:  # the broker dead-letters it (at-least-once), without our reason
            message.reject(requeue=False)
        return True
    except Exception:
        logger.exception(
            "could not settle message %s taken along: the broker redelivers it", companion.request.id
        )
        return False


def delivery_of(task: Task, request: Context) -> Delivery:
    """What the handler knows of this delivery of the message."""
    assert task.max_retries is not None  # the event task sets it; None would mean retry forever
    return Delivery(
        worker=f"{request.hostname} pid {os.getpid()}",
        retries=request.retries,
        max_retries=task.max_retries,
        retry_since=retry_since_of(request.headers, timezone.now()),
    )
