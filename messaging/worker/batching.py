"""Batches of event deliveries, formed in the worker's main process from the messages it
has prefetched, for the event types that have a batch handler (messaging/registry.py).

A batch goes to a pool process as soon as one is free: whatever waits at that moment goes
along, up to DELIVERY_BATCH_SIZE. A batch never waits for company, so at low load a lone
message goes out at once, and under load, while every pool process is busy, the waiting
messages gather into full batches. Freedom is the worker's own pool semaphore, the one Celery
takes for each task, so batches and single tasks share the pool fairly.

Each message keeps its own Celery request: it is accepted, acked, retried, dead-lettered
(messaging/worker/request.py) or requeued on its own, after the pool process returned, that
is after the batch's outcomes committed. If the pool process dies, every message of its
batch is requeued (reject on worker lost), and a redelivered message is never batched again,
so one poisonous message cannot take its companions down twice.

Everything else, and every message the batch cannot take, goes Celery's own way, one at a
time.
"""

import logging
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any, assert_never

from billiard.einfo import ExceptionInfo
from celery.exceptions import Reject, Retry
from celery.worker.request import Request
from celery.worker.state import task_ready
from django.conf import settings

from messaging.errors import HandlingError
from messaging.registry import event_types
from messaging.worker.batch_execution import Failed, Retried, Settlement, Succeeded, deliveries_execute

logger = logging.getLogger(__name__)


class DeliveryBatcher:
    """Takes the consumer's task requests in place of Celery's `on_task_request`."""

    def __init__(self, *, consumer: Any, process_task: Callable[[Request], Any]):
        self._consumer = consumer
        self._process_task = process_task  # Celery's own path, one message at a time
        self._waiting: deque[Request] = deque()
        self._slot_wanted = False
        self.max_size = settings.DELIVERY_BATCH_SIZE

    def on_task_request(self, request: Request) -> None:
        if self.max_size <= 1 or not _batchable(request):
            self._process_task(request)
            return
        self._waiting.append(request)
        self._want_slot()

    def connection_lost(self) -> None:
        """The consumer's connection closed (Consumer.on_close). Celery has cleared the pool's
        semaphore and with it our waiting `_dispatch`: without a reset here no slot would come
        again, and once the connection is back every batchable message would wait for good.
        The messages waiting here came on the closed channel and cannot be acked; the broker
        redelivers them, so they are dropped."""
        dropped = len(self._waiting)
        self._waiting.clear()
        self._slot_wanted = False
        if dropped:
            logger.warning("connection lost: %d waiting deliveries left to the broker to redeliver", dropped)

    def _want_slot(self) -> None:
        if self._slot_wanted or not self._waiting:
            return
        self._slot_wanted = True
        semaphore = self._semaphore()
        if semaphore is None:  # a pool without one (not prefork): send at once
            self._dispatch()
        else:
            semaphore.acquire(self._dispatch)  # now if a process is free, else when one is

    def _dispatch(self) -> None:
        self._slot_wanted = False
        batch: list[Request] = []
        while self._waiting and len(batch) < self.max_size:
            request = self._waiting.popleft()
            if not request.revoked():  # revoked or expired: Celery (and request.py) settled it
                batch.append(request)
        if batch:
            self._submit(batch)
        else:
            self._release()
        self._want_slot()

    def _submit(self, batch: list[Request]) -> None:
        first = batch[0]
        time_limit, soft_time_limit = first.time_limits
        try:
            self._consumer.pool.apply_async(
                deliveries_execute,
                args=([request.request_dict for request in batch],),
                accept_callback=partial(_accepted, batch),
                callback=partial(_finished, batch),
                error_callback=partial(_lost, batch),
                soft_timeout=soft_time_limit or first.task.soft_time_limit,
                timeout=time_limit or first.task.time_limit,
                correlation_id=first.id,
            )
        except Exception:
            logger.critical("could not hand a batch of %d deliveries to the pool", len(batch), exc_info=True)
            self._release()
            for request in batch:
                request.reject(requeue=True)

    def _semaphore(self) -> Any:
        return getattr(self._consumer.controller, "semaphore", None)

    def _release(self) -> None:
        semaphore = self._semaphore()
        if semaphore is not None:
            semaphore.release()


def _batchable(request: Request) -> bool:
    if not getattr(request.task, "batches_deliveries", False):
        return False
    if (request.delivery_info or {}).get("redelivered"):
        return False  # after a crash: alone, so a poisonous message takes only itself down
    args, kwargs = request.args, request.kwargs
    if kwargs or not isinstance(args, list | tuple) or len(args) != 1 or not isinstance(args[0], dict):
        return False  # not one envelope: Celery's own path says what is wrong with it
    event_type = event_types().get(args[0].get("event_type"))  # type: ignore[arg-type]
    return event_type is not None and bool(event_type.batch_handler)


# The pool's callbacks run in the main process's event loop: they must not raise, and each
# message is settled on its own, so one that cannot be settled does not strand the others.


def _accepted(batch: list[Request], pid: Any, time_accepted: float) -> None:
    for request in batch:
        _guarded(request, partial(request.on_accepted, pid, time_accepted))


def _finished(batch: list[Request], settlements: list[Settlement]) -> None:
    for request, settlement in zip(batch, settlements, strict=True):
        _guarded(request, partial(_settlement_apply, request, settlement))


def _lost(batch: list[Request], exc_info: ExceptionInfo) -> None:
    """The pool process died (or hit the hard time limit) with the batch: Celery's handling
    of each message's failure, which requeues it (reject on worker lost, acks_on_timeout)."""
    for request in batch:
        _guarded(request, partial(request.on_failure, exc_info))


def _settlement_apply(request: Request, settlement: Settlement) -> None:
    match settlement:
        case Succeeded(result, runtime):
            request.on_success((False, result, runtime))
        case Retried(reason):
            task_ready(request)  # as Celery's on_failure does before its on_retry
            # The retry was published in the pool process; Celery's Retry names its failure.
            request.on_retry(_exception_info(Retry(exc=HandlingError(reason))))
        case Failed(reason, error_class):
            error = HandlingError(reason)
            error.error_class = error_class  # the dead letter's class, as the pool process found it
            request.on_failure(_exception_info(Reject(error, requeue=False)))
        case _:
            assert_never(settlement)


def _exception_info(exc: BaseException) -> ExceptionInfo:
    try:
        raise exc
    except BaseException:
        return ExceptionInfo()


def _guarded(request: Request, settle: Callable[[], Any]) -> None:
    try:
        settle()
    except Exception:
        logger.exception("could not settle message %s of a batch: it is requeued", request.id)
        try:
            request.reject(requeue=True)
        except Exception:
            logger.exception("could not requeue message %s: the broker redelivers it", request.id)
