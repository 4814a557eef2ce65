"""The backbone's Celery tasks: thin. They translate between the message and the services."""

from datetime import datetime
from typing import Any

from celery import Task, shared_task
from celery.exceptions import Reject, Retry, SoftTimeLimitExceeded
from django.conf import settings

from messaging.errors import PermanentError
from messaging.relay.relay import relay_outbox_sweep
from messaging.retention import retention_run
from messaging.retries import RETRIED_ERRORS, retry_plan, retry_refusal
from messaging.retry_policy import max_retries
from messaging.task_names import HANDLE_EVENT, HANDLE_EVENT_BEFORE_MESSAGING, RELAY_OUTBOX_SWEEP, RETENTION
from messaging.worker.batch_execution import deliveries_run, retried_if_cut


class EventTask(Task):
    """Retries come back to the work queue they came from, after our back-off
    (messaging/retries.py). A delivery of an email takes the messages waiting behind it in its
    queue along, and settles each as Celery settles this task's own
    (messaging/worker/batch_execution.py)."""

    runs_event_deliveries = True  # messages of this task may be taken along into a batch

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
        plan = retry_plan(self.request, exc, countdown=countdown, eta=eta)
        if plan.budget_spent and exc is not None:
            # The failure stands, as Celery raises it when no retry is left. Not by passing
            # Celery's `max_retries`: Task.retry keeps that on the task object, and when retry
            # raises, the autoretry wrapper leaves it there, cutting every later retry of this
            # pool process at that count.
            raise exc
        self.request.retries = plan.retries - 1  # Celery's retry adds the one
        if plan.budget_spent:  # an explicit retry without an error: Celery's own refusal
            max_retries = self.request.retries
        if plan.queue is not None:
            options.setdefault("queue", plan.queue)
        options["headers"] = plan.headers
        # py-amqp waits for the retry's confirm without a limit unless the publish sets one.
        options.setdefault("confirm_timeout", settings.TASK_RETRY_CONFIRM_TIMEOUT_SECONDS)
        try:
            return super().retry(
                args,
                kwargs,
                exc=exc,
                throw=throw,
                eta=eta,
                countdown=plan.countdown,
                max_retries=max_retries,
                **options,
            )
        except Reject as refused:  # the retry was not published (Task.retry)
            # Celery's Reject keeps its first argument as `reason`; celery-types omits the attribute.
            publish_error = refused.reason  # type: ignore[attr-defined]
            raise Reject(retry_refusal(publish_error, exc), requeue=False) from refused


def _handle_event(self: EventTask, envelope: object) -> str:
    try:
        result = deliveries_run(self, self.request, envelope)
    except SoftTimeLimitExceeded as cut:  # outside the deliveries (taking messages along)
        result = retried_if_cut(cut)
    if isinstance(result, PermanentError):
        # Straight to the dead-letter queue, with the reason (messaging/worker/request.py).
        raise Reject(result, requeue=False) from result
    if isinstance(result, BaseException):
        raise result  # autoretry_for retries what is transient; anything else fails
    return result


def _event_task(name: str) -> EventTask:
    return shared_task(
        name=name,
        bind=True,
        base=EventTask,
        acks_late=True,
        reject_on_worker_lost=True,  # bounded by the quorum queue's delivery limit
        acks_on_timeout=False,  # a hard time limit requeues; the delivery limit bounds it too
        autoretry_for=RETRIED_ERRORS,
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
