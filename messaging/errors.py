"""What went wrong with handling an event, by what to do about it. The event task's retry
declaration names these classes; a handler raises them after it has recorded its state.

Each error carries a reason in plain words for the person reviewing it, and the
technical detail separately.
"""

from observability.logs import email_addresses_mask


class HandlingError(Exception):
    error_class = "error"

    def __init__(self, reason: str, *, detail: str = ""):
        # The reason may name the customer's address: the database keeps it (`reason`), but
        # the exception's text travels in Celery's task events and logs, so it is masked.
        super().__init__(email_addresses_mask(reason))
        self.reason = reason
        self.detail = detail


class TransientError(HandlingError):
    """Worth trying again later: the provider or a dependency is briefly unavailable."""

    error_class = "transient"

    def __init__(self, reason: str, *, detail: str = "", retry_after: float | None = None):
        super().__init__(reason, detail=detail)
        self.retry_after = retry_after


class InFlightError(TransientError):
    """Someone else is sending this notification right now; look again shortly."""

    error_class = "in_flight"


class TimeLimitError(TransientError):
    """The task's soft time limit ended the delivery (a database or provider that stopped
    answering). What it had committed stands, as after a crash: an email it had claimed waits
    out its lease (NOTIFICATION_LEASE_SECONDS), and the retry then resends it under the same
    key only where the provider deduplicates, or puts it to review."""

    error_class = "time_limit"


class WaitError(TransientError):
    """Nothing was tried: the handler's downstream takes no calls now (a circuit breaker is
    open, an operator paused it, a rate limit). The message comes back after `retry_after`
    seconds without using up its retry budget or its count of retries."""

    error_class = "waiting"

    def __init__(self, reason: str, *, retry_after: float):
        super().__init__(reason, retry_after=retry_after)


class PermanentError(HandlingError):
    """Trying again cannot help: the message goes to the dead-letter queue with the reason."""

    error_class = "permanent"


class RetriesExhaustedError(PermanentError):
    """A transient failure that lasted longer than our retries."""

    error_class = "retries_exhausted"


class NeedsReviewError(PermanentError):
    """The outcome is unknown and a resend could duplicate the email: a person decides."""

    error_class = "needs_review"


class RetryNotPublishedError(PermanentError):
    """The retry message could not be published (the broker refused it, or did not confirm
    it in time): the delivery goes to the dead-letter queue instead, to be replayed once the
    broker takes messages again. Nothing was wrong with the delivery itself."""

    error_class = "retry_not_published"
