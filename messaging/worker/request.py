"""The worker's handling of one task message, with our dead-lettering.

Celery's defaults would let some failures vanish (docs/celery-and-rabbitmq.md, "What Celery
drops by default"): an expired message is acked away, and its id stays in the worker's
revoked set, so a replay of the same event would be dropped too. Here every message of our
work queues that Celery would reject or expire goes to the dead-letter queue with its reason
instead.
"""

from datetime import UTC, datetime

from celery.worker.request import Request

from messaging.dead_letters.publish import dead_letter_message, work_queue_for_delivery
from messaging.worker.failures import failure_reason


class DeadLetteringRequest(Request):
    _failure = ("", "")

    def on_failure(self, exc_info, send_failed_event=True, return_ok=False):
        exc = getattr(exc_info.exception, "exc", exc_info.exception)  # unwrap ExceptionWithTraceback
        self._failure = failure_reason(exc, content_type=self._content_type)
        return super().on_failure(exc_info, send_failed_event=send_failed_event, return_ok=return_ok)

    def reject(self, requeue=False):
        if requeue or self.acknowledged or not self._dead_letter(*self._failure):
            return super().reject(requeue=requeue)
        self.send_event("task-rejected", requeue=False)
        return None

    def maybe_expire(self):
        if not self._from_work_queue():
            return super().maybe_expire()
        # Unlike Celery, do not put the id on the revoked list: a replay of this event must run.
        return bool(self.expires and datetime.now(self.expires.tzinfo or UTC) > self.expires)

    def _announce_revoked(self, reason, terminated, signum, expired):
        if not (expired and self._from_work_queue()):
            return super()._announce_revoked(reason, terminated, signum, expired)
        self._already_revoked = True
        if not self._dead_letter(
            f"The message expired at {self.expires.isoformat()} before a worker ran it.", "expired"
        ):
            super().reject(requeue=False)  # the broker dead-letters it; never ack it away
        return None

    def _from_work_queue(self) -> bool:
        info = self.delivery_info or {}
        return work_queue_for_delivery(info.get("exchange") or "", info.get("routing_key") or "") is not None

    def _dead_letter(self, reason: str, error_class: str) -> bool:
        """Copy to the DLQ with the reason, then ack; False if the copy could not be made."""
        published = dead_letter_message(
            self._message,
            reason=reason or "The task failed.",
            error_class=error_class or "error",
            worker=self.hostname,
        )
        if published:
            self.acknowledge()
        return published
