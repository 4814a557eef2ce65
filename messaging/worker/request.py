"""The worker's handling of one task message, with our dead-lettering.

Celery's defaults would let some failures vanish (docs/celery-and-rabbitmq.md, "What Celery
drops by default"): an expired message is acked away, and its id stays in the worker's
revoked set, so a replay of the same event would be dropped too. Here every message of our
work queues that Celery would reject or expire goes to the dead-letter queue with its reason
instead.

Only methods of Celery's documented custom request class are overridden (the task's
`Request` option; `on_failure`, `reject` and `maybe_expire` in Celery's API reference of
`celery.worker.request.Request`).
"""

from datetime import UTC, datetime
from typing import Any, Literal

from celery.worker.request import Request

from messaging.dead_lettering import dead_letter_message, work_queue_for_delivery
from messaging.worker.failures import expired_reason, failure_reason


class DeadLetteringRequest(Request):
    _failure = ("", "")

    # exc_info is billiard's ExceptionInfo.
    def on_failure(self, exc_info: Any, send_failed_event: bool = True, return_ok: bool = False) -> None:
        exc = getattr(exc_info.exception, "exc", exc_info.exception)  # unwrap ExceptionWithTraceback
        self._failure = failure_reason(exc, content_type=self.content_type)
        return super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)

    def reject(self, requeue: bool = False) -> None:
        if requeue or self.acknowledged or not self._dead_letter(*self._failure):
            return super().reject(requeue=requeue)
        self.send_event("task-rejected", requeue=False)
        return None

    def maybe_expire(self) -> Literal[True] | None:
        """Celery asks this before running the message. An expired message of a work queue is
        settled here: copied to the dead-letter queue with its reason and acked, or, if the
        copy cannot be made, rejected so that the broker dead-letters it; never acked away.
        Unlike Celery's own, its id is not put on the revoked list: a replay of this event
        must run. Answering True, Celery then announces the revocation (its ack finds the
        message settled already)."""
        if not self._from_work_queue():
            return super().maybe_expire()
        if not (self.expires and datetime.now(self.expires.tzinfo or UTC) > self.expires):
            return None
        if not self.acknowledged and not self._dead_letter(expired_reason(self.expires), "expired"):
            super().reject(requeue=False)  # the broker dead-letters it, without our reason
        return True

    def _from_work_queue(self) -> bool:
        info = self.delivery_info or {}
        return work_queue_for_delivery(info.get("exchange") or "", info.get("routing_key") or "") is not None

    def _dead_letter(self, reason: str, error_class: str) -> bool:
        """Copy to the DLQ with the reason, then ack; False if the copy could not be made."""
        published = dead_letter_message(
            self.message,
            reason=reason or "The task failed.",
            error_class=error_class or "error",
            worker=self.hostname,
        )
        if published:
            self.acknowledge()
        return published
