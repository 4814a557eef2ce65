"""What a worker's pool process runs for a batch of event deliveries (formed by the main
process, messaging/worker/batching.py): the handlers, then for each delivery what Celery
would do after the event task returned or raised, so the main process only has to ack,
count or dead-letter each message.

Every delivery ends in one of three settlements, plain tuples that cross the process
boundary without pickling our exceptions:
  ("succeeded", result, seconds) the task's return value, the batch's run time; ack
  ("retried", reason)            the retry message is published (and confirmed); ack
  ("failed", reason, class)      a permanent failure or no retries left; dead-letter
"""

import os
import time
from typing import Any

from celery import current_app
from celery.exceptions import Reject, Retry
from django.utils import timezone

from infra.worker_signals import database_connection_used, database_connections_renew
from messaging.dispatch import Delivery, events_dispatch_batch
from messaging.errors import PermanentError
from messaging.retry_policy import retry_since_of
from messaging.worker.failures import failure_reason

SUCCEEDED = "succeeded"
RETRIED = "retried"
FAILED = "failed"


def deliveries_execute(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """`items`: for each message, its task name, Celery request fields, envelope and
    retries (batching.py `_batch_item`). Never raises for a delivery's failure: each is
    settled on its own."""
    database_connections_renew()
    try:
        started = time.monotonic()
        deliveries = [(item["envelope"], _delivery(item)) for item in items]
        results = events_dispatch_batch(deliveries)
        runtime = time.monotonic() - started
        return [_settle(item, result, runtime) for item, result in zip(items, results, strict=True)]
    finally:
        database_connection_used()


def _delivery(item: dict[str, Any]) -> Delivery:
    max_retries = current_app.tasks[item["task"]].max_retries
    assert max_retries is not None  # the event task sets it; None would mean retry forever
    return Delivery(
        worker=f"{item['hostname']} pid {os.getpid()}",
        retries=item["retries"],
        max_retries=max_retries,
        retry_since=retry_since_of(item["request"], timezone.now()),  # the headers, as Celery keeps them
    )


def _settle(item: dict[str, Any], result: str | BaseException, runtime: float) -> tuple[Any, ...]:
    """What the event task's declaration (messaging/tasks.py) makes Celery do with this
    result: a permanent error is rejected to the dead-letter queue, the autoretry errors are
    retried through the task's own retry (its delays and queue), anything else fails."""
    if not isinstance(result, BaseException):
        return (SUCCEEDED, result, runtime)
    task = current_app.tasks[item["task"]]
    if isinstance(result, PermanentError):
        return (FAILED, *failure_reason(Reject(result, requeue=False), content_type=None))
    if isinstance(result, Exception) and isinstance(result, tuple(getattr(task, "autoretry_for", ()))):
        task.push_request(item["request"], args=[item["envelope"]], kwargs={}, called_directly=False)
        try:
            task.retry(exc=result)  # publishes the retry and raises Retry; re-raises when none are left
        except Retry:
            return (RETRIED, str(result))
        except BaseException as final:
            return (FAILED, *failure_reason(final, content_type=None))
        finally:
            task.pop_request()
    return (FAILED, *failure_reason(result, content_type=None))
