"""The backbone's Celery tasks: thin. They translate between the message and the services."""

import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from amqp.exceptions import MessageNacked
from celery import Task, shared_task
from celery.exceptions import Reject, Retry
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from messaging.broker.headers import BROKER_DELIVERY_HEADERS
from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import (
    HandlingError,
    InFlightError,
    PermanentError,
    RetryNotPublishedError,
    TransientError,
    WaitError,
)
from messaging.registry import EventType, event_types
from messaging.relay.relay import relay_outbox_sweep
from messaging.retention import retention_run
from messaging.retry_policy import (
    IN_FLIGHT_DELAY_SECONDS,
    budget_spent,
    max_retries,
    retry_budget,
    retry_delay_seconds,
    retry_max_delay_seconds,
    retry_since_header,
    retry_since_of,
)
from messaging.task_names import HANDLE_EVENT, HANDLE_EVENT_BEFORE_MESSAGING, RELAY_OUTBOX_SWEEP, RETENTION

# What a publish raises when the broker refused the message (a nack), did not confirm it in
# time, or could not be reached: kombu's OperationalError wraps the connection's errors.
BROKER_REFUSALS = (KombuOperationalError, MessageNacked, TimeoutError, ConnectionError)


class EventTask(Task):
    """Retries come back to the work queue they came from, after our back-off. The worker
    hands deliveries of event types with a batch handler over in batches
    (messaging/worker/batching.py), and settles each message as Celery would settle this
    task's (messaging/worker/batch_execution.py)."""

    batches_deliveries = True

    def retry(
        self,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
        exc: Exception | None = None,
        throw: bool = True,
        eta: datetime | None = None,
        countdown: float | None = None,
        max_retries: int | None = None,
        **options: Any,
    ) -> Retry:
        waiting, event_type = False, _event_type_of(self.request.args)
        if isinstance(exc, InFlightError | WaitError):
            # Whole seconds, at least 1: Celery's delayed-delivery queues count whole seconds,
            # and a message they deliver before its ETA is held by the worker's timer instead.
            countdown = (
                IN_FLIGHT_DELAY_SECONDS if isinstance(exc, InFlightError) else math.ceil(exc.retry_after or 1)
            )
            # Waiting for another worker's lease, or for a provider that takes no calls, is not
            # a failed attempt: the next message keeps this retry number (Celery adds one) and
            # its budget (the first failure's time moves by the wait). Leases expire and
            # circuits close, so this ends; an operator's pause lasts until resumed.
            self.request.retries = max(0, self.request.retries - 1)
            waiting = True
        elif countdown is None and eta is None:
            retry_after, cap = getattr(exc, "retry_after", None), retry_max_delay_seconds(event_type)
            countdown = retry_delay_seconds(
                retry_number=self.request.retries + 1, retry_after=retry_after, max_delay_seconds=cap
            )
        if event_type is not None:
            options.setdefault("queue", event_type.queue)  # through orders.retry, keyed by the queue's name
        # The retry budget counts from the first failure; the retry message carries its time.
        # Not RabbitMQ's headers of this trip (messaging/broker/headers.py), as Celery itself.
        headers = {k: v for k, v in (self.request.headers or {}).items() if k not in BROKER_DELIVERY_HEADERS}
        options["headers"] = retry_since_header(headers, timezone.now(), waiting=waiting)
        if not waiting and _budget_spent(headers, event_type):
            max_retries = self.request.retries  # Celery then raises `exc`: the message fails
        # py-amqp waits for the retry's confirm without a limit unless the publish sets one.
        options.setdefault("confirm_timeout", settings.TASK_RETRY_CONFIRM_TIMEOUT_SECONDS)
        with _retry_refusal_explained(exc):
            return super().retry(
                args,
                kwargs,
                exc=exc,
                throw=throw,
                eta=eta,
                countdown=countdown,
                max_retries=max_retries,
                **options,
            )


@contextmanager
def _retry_refusal_explained(exc: Exception | None) -> Iterator[None]:
    """Celery raises Reject(requeue=False) for any error of the retry's publish (celery/app/
    task.py, Task.retry), which the dead letter would call "permanent". When the broker
    refused it, did not confirm it or was out of reach, say so, so an operator replays it once
    the broker is healthy; any other error (a routing or encoding fault of ours) stays as it
    was. Before giving up, kombu has already published it again up to Celery's publish retry
    policy (three more times), so a copy may yet arrive: the inbox makes that harmless."""
    try:
        yield
    except Reject as refused:
        if not isinstance(refused.reason, BROKER_REFUSALS):  # type: ignore[attr-defined]
            raise
        raise Reject(_retry_not_published(refused, exc), requeue=False) from refused


def _retry_not_published(refused: Reject, exc: Exception | None) -> RetryNotPublishedError:
    # Celery's Reject keeps its first argument as `reason`; celery-types omits the attribute.
    publish_error = refused.reason  # type: ignore[attr-defined]
    error = _error_chain(publish_error)
    failure = exc.reason if isinstance(exc, HandlingError) else str(exc)
    return RetryNotPublishedError(
        f"The broker refused or did not confirm this delivery's retry ({error}). The failure that "
        f"called for the retry: {failure} Replay it once the broker takes messages again; if the "
        "retry arrived after all, the replay finds the email done."
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


def _budget_spent(headers: dict[str, Any], event_type: EventType | None) -> bool:
    """Every handler's retries end with its type's budget (the email handler decides it
    before, on its own: its outcome says "gave up"); the count is only a safety cap."""
    now = timezone.now()
    return budget_spent(retry_since=retry_since_of(headers, now), budget=retry_budget(event_type), now=now)


def _event_type_of(args: Any) -> EventType | None:
    envelope = (args or [None])[0]
    name = envelope.get("event_type") if isinstance(envelope, dict) else None
    return event_types().get(name) if isinstance(name, str) else None


def _handle_event(self: EventTask, envelope: object) -> str:
    assert self.max_retries is not None  # _event_task sets it; None would mean retry forever
    delivery = Delivery(
        worker=f"{self.request.hostname} pid {os.getpid()}",
        retries=self.request.retries,
        max_retries=self.max_retries,
        retry_since=retry_since_of(self.request.headers, timezone.now()),
    )
    try:
        return event_dispatch(raw_envelope=envelope, delivery=delivery)
    except PermanentError as exc:
        # Straight to the dead-letter queue, with the reason (messaging/worker/request.py).
        raise Reject(exc, requeue=False) from exc


def _event_task(name: str) -> EventTask:
    return shared_task(
        name=name,
        bind=True,
        base=EventTask,
        acks_late=True,
        reject_on_worker_lost=True,  # bounded by the quorum queue's delivery limit
        acks_on_timeout=False,  # a hard time limit requeues; the delivery limit bounds it too
        # A database that is briefly away is transient too; nothing was recorded, so retry.
        autoretry_for=(TransientError, OperationalError, InterfaceError),
        max_retries=max_retries(),
        Request="messaging.worker.request:DeadLetteringRequest",
    )(_handle_event)


handle_event = _event_task(HANDLE_EVENT)
# Messages written before the upgrade carry the old name; the same task runs them.
handle_event_before_messaging = _event_task(HANDLE_EVENT_BEFORE_MESSAGING)


@shared_task(name=RELAY_OUTBOX_SWEEP, ignore_result=True, soft_time_limit=30, time_limit=45)
def relay_outbox_sweep_task() -> dict[str, int]:
    report = relay_outbox_sweep()
    return {"published": report.published, "failed": report.failed}


@shared_task(name=RETENTION, ignore_result=True, soft_time_limit=1800, time_limit=1900)
def retention_task() -> dict[str, int]:
    return retention_run().counts()
