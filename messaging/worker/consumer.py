"""The worker's consumer, with our dead-lettering for messages that never become a task.

Celery acks a message whose body cannot be decoded, and rejects unknown or invalid ones
without saying why (docs/celery-and-rabbitmq.md, "What Celery drops by default"). Nothing
may be dropped: here each goes to the dead-letter queue with its reason, and the worker
carries on with the next message.

It also publishes its task events (for Flower) without waiting for a confirm of each, and
starts without Celery's delayed-delivery step (see `DeadLetteringConsumer.Blueprint`).
"""

import logging
from collections.abc import Callable
from typing import Any

from celery.worker.consumer import Consumer
from kombu import Connection
from kombu.exceptions import ContentDisallowed
from kombu.message import Message

from messaging.dead_lettering import dead_letter_message
from messaging.worker.failures import (
    failure_reason,
    not_a_task_message_reason,
    task_body_problem,
    task_headers_problem,
    unknown_task_reason,
)

logger = logging.getLogger(__name__)

# Celery's delayed-delivery step, by the exact name Celery's own consumer blueprint lists it
# under (tests/unit/test_documented_surfaces.py fails if a release renames or drops it).
DELAYED_DELIVERY_STEP = "celery.worker.consumer.delayed_delivery:DelayedDelivery"


def _body_problem(message: Message) -> str | None:
    """What is wrong with the body (failures.task_body_problem); None also for a body that
    does not decode, which Celery's handler reports with its own reason. kombu keeps the
    decoded body, so Celery does not decode it again."""
    try:
        body = message.decode()
    except Exception:
        return None
    return task_body_problem(body)


class DeadLetteringConsumer(Consumer):
    class Blueprint(Consumer.Blueprint):  # type: ignore[misc,valid-type]  # a class in Celery, not in its stubs
        # Celery's DelayedDelivery step declares the delayed-delivery exchanges and queues and
        # binds ours to them at every consumer start, on each node of the broker list in turn,
        # sleeping 1, 3 and 5 s between its tries of a node that is down: a consumer whose node
        # died took messages again 6 to 9 s later, though it had reconnected to another node in
        # milliseconds. `declare_topology` declares and binds the same (messaging/broker/
        # declare.py), and /readyz says when it has not run. `default_steps` is the blueprint's
        # documented list of steps (celery.bootsteps.Blueprint).
        default_steps = [step for step in Consumer.Blueprint.default_steps if step != DELAYED_DELIVERY_STEP]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # py-amqp decodes a message's headers recursively while it reads the frame, before
        # Celery or any check here sees the message: a table nested past Python's recursion
        # limit raised RecursionError there, which Celery treats as unrecoverable, and the
        # worker stopped (and stopped again after every restart). As one of the connection's
        # errors (kombu's `Connection.connection_errors`) it makes the consumer reconnect
        # instead; the message comes back each time, and at the queue's delivery limit
        # RabbitMQ dead-letters it (docs/failure-handling.md).
        errors: tuple[type[BaseException], ...] = self.connection_errors  # type: ignore[has-type]  # set in Celery's __init__
        self.connection_errors = (*errors, RecursionError)

    def on_connection_error_after_connected(self, exc: Exception) -> None:
        """After a message the AMQP client could not read (RecursionError, above), the running
        deliveries are left to finish and record their outcome: the connection is dropped
        for that message only, and Celery's worker_cancel_long_running_tasks_on_connection_loss
        would otherwise end a provider call at each of the reconnects the message causes
        until its delivery limit (an SMTP email sent and never recorded). Their messages come
        back and the lease, then the inbox, answer them."""
        if not isinstance(exc, RecursionError):
            super().on_connection_error_after_connected(exc)
            return
        conf = self.app.conf
        cancelling = conf.worker_cancel_long_running_tasks_on_connection_loss
        conf.worker_cancel_long_running_tasks_on_connection_loss = False
        try:
            super().on_connection_error_after_connected(exc)
        finally:
            conf.worker_cancel_long_running_tasks_on_connection_loss = cancelling

    def connection_for_write(self, url: str | None = None, heartbeat: float | None = None) -> Connection:
        # Only the task events go out on this connection (celery/worker/consumer/events.py).
        # With the broker-wide confirm_publish each of the three events per task waited for
        # its confirm in the main process, the one that hands out tasks: 40 % of its time in
        # the benchmark. Events are monitoring data; retries keep their confirms.
        return self.ensure_connected(
            self.app.connection_for_write(
                url=url, heartbeat=heartbeat, transport_options={"confirm_publish": False}
            )
        )

    def create_task_handler(self, *args: Any, **kwargs: Any) -> Callable[[Message], None]:
        """Celery's handler of each message received, behind the check of its headers that a
        batch makes too (messaging/worker/failures.py). Celery's handler raises on some
        malformed headers (a `task` header that is a list, no `id`, a body that is JSON but
        not a task's three parts) outside the failures it settles: the message stayed
        unacknowledged and its prefetch slot taken until the broker's consumer timeout. Here
        such a message goes to the dead-letter queue with its reason, and so does one that
        makes Celery's handler raise for a reason not foreseen."""
        celery_handler = super().create_task_handler(*args, **kwargs)

        def on_task_received(message: Message) -> None:
            problem = task_headers_problem(message.headers, tasks=self.app.tasks) or _body_problem(message)
            if problem is not None:
                self._dead_letter(message, problem, "malformed")
                return
            try:
                celery_handler(message)
            except Exception as exc:
                message_id = (message.headers or {}).get("id")
                logger.exception("Celery could not take message %s as a task", message_id)
                if not message.acknowledged:
                    reason = f"The message is not a valid task message: {type(exc).__name__}: {exc}"
                    self._dead_letter(message, reason, "malformed")

        return on_task_received

    def on_decode_error(self, message: Message, exc: Exception) -> None:
        self._dead_letter(message, f"The message body could not be decoded: {exc}", "malformed")

    def on_unknown_message(self, body: Any, message: Message) -> None:
        self._dead_letter(message, not_a_task_message_reason(), "malformed")

    def on_unknown_task(self, body: Any, message: Message, exc: Exception) -> None:
        name = (message.headers or {}).get("task")
        self._dead_letter(message, unknown_task_reason(name), "unknown_task")

    def on_invalid_task(self, body: Any, message: Message, exc: Exception) -> None:
        if isinstance(exc, ContentDisallowed):  # e.g. pickle: refused before any decoding
            self._dead_letter(message, *failure_reason(exc, content_type=message.content_type))
            return
        self._dead_letter(message, f"The message is not a valid task message: {exc}", "malformed")

    def _dead_letter(self, message: Message, reason: str, error_class: str) -> None:
        if dead_letter_message(message, reason=reason, error_class=error_class, worker=self.hostname):
            message.ack()
        else:  # the broker dead-letters it (at-least-once), without our reason; never an ack
            message.reject(requeue=False)
