"""Celery tasks: thin. They translate between the message and the services."""

import os

from celery import Task, shared_task
from celery.exceptions import Reject

from notifications.delivery.errors import PermanentError, TransientError
from notifications.delivery.handler import Delivery, event_handle
from notifications.delivery.retry_policy import MAX_RETRIES, retry_delay_seconds
from notifications.registry import EVENT_TYPES
from notifications.relay.relay import relay_outbox_sweep


class EventTask(Task):
    """Retries come back to the work queue they came from, after our back-off."""

    def retry(self, args=None, kwargs=None, exc=None, throw=True, eta=None, countdown=None, **options):
        if isinstance(exc, TransientError) and countdown is None and eta is None:
            countdown = retry_delay_seconds(
                retry_number=self.request.retries + 1, retry_after=exc.retry_after
            )
        envelope = (self.request.args or [{}])[0]
        event_type = EVENT_TYPES.get(envelope.get("event_type")) if isinstance(envelope, dict) else None
        if event_type is not None:
            # Through orders.retry, keyed by the queue name: back to this queue only.
            options.setdefault("queue", event_type.queue)
        return super().retry(args, kwargs, exc=exc, throw=throw, eta=eta, countdown=countdown, **options)


@shared_task(
    bind=True,
    base=EventTask,
    name="notifications.handle_event",
    acks_late=True,
    reject_on_worker_lost=True,  # bounded by the quorum queue's delivery limit
    autoretry_for=(TransientError,),
    max_retries=MAX_RETRIES,
)
def handle_event(self, envelope):
    delivery = Delivery(
        worker=f"{self.request.hostname} pid {os.getpid()}",
        retries=self.request.retries,
        max_retries=self.max_retries,
    )
    try:
        return event_handle(raw_envelope=envelope, delivery=delivery)
    except PermanentError as exc:
        # Straight to the dead-letter queue, with the reason in the task's failure record.
        raise Reject(exc.reason, requeue=False) from exc


@shared_task(name="notifications.relay_outbox_sweep", ignore_result=True)
def relay_outbox_sweep_task():
    report = relay_outbox_sweep()
    return {"published": report.published, "failed": report.failed}
