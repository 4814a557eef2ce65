"""What a worker's pool process runs for a batch of event deliveries (formed by the main
process, messaging/worker/batching.py): the handlers, then for each delivery what Celery
would do after the event task returned or raised, so the main process only has to ack,
count or dead-letter each message.

Every delivery ends in one settlement, made of plain fields so it crosses the process
boundary without pickling our exceptions.
"""

import time
from dataclasses import dataclass
from typing import Any

from celery import Task, current_app
from celery.app.task import Context
from celery.exceptions import Reject

from infra.worker_signals import database_connection_used, database_connections_renew
from messaging.dispatch import events_dispatch_batch
from messaging.errors import PermanentError
from messaging.retries import RETRIED_ERRORS, retry_publish
from messaging.tasks import delivery_of
from messaging.worker.failures import failure_reason


@dataclass(frozen=True)
class Succeeded:
    """Ack: the task's return value, and the batch's run time."""

    result: str
    runtime: float


@dataclass(frozen=True)
class Retried:
    """Ack: the retry message is published (and confirmed); the failure that called for it."""

    reason: str


@dataclass(frozen=True)
class Failed:
    """Dead-letter: a permanent failure or no retries left, with the dead letter's class."""

    reason: str
    error_class: str


Settlement = Succeeded | Retried | Failed


def deliveries_execute(requests: list[dict[str, Any]]) -> list[Settlement]:
    """`requests`: each message's request as Celery's worker decoded it (`Request.request_dict`:
    its task name, id, retries, headers and its one argument, the envelope). Never raises for
    a delivery's failure: each is settled on its own."""
    database_connections_renew()
    try:
        started = time.monotonic()
        tasks = [current_app.tasks[request["task"]] for request in requests]
        contexts = [Context(request) for request in requests]  # as the task's `self.request` holds it
        results = events_dispatch_batch(
            [
                (request["args"][0], delivery_of(task, context))
                for request, task, context in zip(requests, tasks, contexts, strict=True)
            ]
        )
        runtime = time.monotonic() - started
        return [
            _settlement_of(task, context, result, runtime)
            for task, context, result in zip(tasks, contexts, results, strict=True)
        ]
    finally:
        database_connection_used()


def _settlement_of(task: Task, request: Context, result: str | BaseException, runtime: float) -> Settlement:
    """What the event task's declaration (messaging/tasks.py) makes Celery do with this
    result: a permanent error is rejected to the dead-letter queue, the autoretry errors are
    retried with the task's delays and queue, anything else fails."""
    if not isinstance(result, BaseException):
        return Succeeded(result, runtime)
    if isinstance(result, PermanentError):
        return Failed(*failure_reason(Reject(result, requeue=False), content_type=None))
    if isinstance(result, RETRIED_ERRORS):
        try:
            retry_publish(task, request, result)
        except BaseException as final:  # no retries left, or the broker did not take it
            return Failed(*failure_reason(final, content_type=None))
        return Retried(str(result))
    return Failed(*failure_reason(result, content_type=None))
