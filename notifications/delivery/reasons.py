"""Reasons in plain words, for the person who reviews a notification; the technical detail
is stored next to them."""

from datetime import datetime

from django.utils import timezone

from notifications.documents.attached import AttachmentChanged, AttachmentDeleted
from notifications.providers.base import Outcome, SendResult

# Refused by us before any call: a document the email carries changed, or was deleted.
_DOCUMENT_REFUSALS = (AttachmentChanged.error_code, AttachmentDeleted.error_code)


def reason_for_result(result: SendResult, *, to: str) -> str:
    status = f" (HTTP {result.http_status})" if result.http_status else ""
    match result.outcome:
        case Outcome.TRANSIENT:
            return f"The mail provider was temporarily unavailable{status}; we will try again."
        case Outcome.IN_FLIGHT:
            return "The mail provider is still processing an earlier attempt of this email."
        case Outcome.PERMANENT if result.error_code == "render_error":
            return (
                f"The email could not be rendered (a bug in its template, nothing was sent): {result.detail}"
            )
        case Outcome.PERMANENT if result.error_code in _DOCUMENT_REFUSALS:
            return f"Not sent, the mail provider was not called: {result.detail}"
        case Outcome.PERMANENT:
            return (
                f"The mail provider refused the email to {to}{status}: {result.detail or 'no reason given'}"
            )
        case Outcome.UNKNOWN:
            return (
                f"The connection to the mail provider broke after the email was handed over{status}, "
                "so we cannot tell whether it was sent."
            )
        case Outcome.ACCEPTED_EARLIER:
            return (
                "The mail provider says it accepted this email earlier (a repeat of its key) but not "
                "which message it was, so it is not sent again; the provider's delivery event will "
                "confirm it, or a person checks if none arrives in time."
            )
        case Outcome.KEY_CONFLICT:
            return (
                "The mail provider already has a different email under this notification's key. "
                "Something was sent earlier; it is not sent again."
            )
    return "The email was accepted by the mail provider."


GAVE_UP = (
    "The mail provider kept failing; we gave up after {attempts} attempts over {duration} "
    "(the retry budget of this email). Last problem: {last}"
)


def gave_up(attempts: int, *, since: datetime | None, last: str) -> str:
    tried_for = (timezone.now() - since).total_seconds() if since else 0
    return GAVE_UP.format(attempts=attempts, duration=duration_in_words(tried_for), last=last)


def duration_in_words(seconds: float) -> str:
    for unit, size in (("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} seconds"


WORKER_STOPPED = (
    "A worker stopped while it was handing this email to the mail provider, so we cannot tell "
    "whether it was sent."
)
UNCERTAIN = "An earlier attempt may have reached the customer: its outcome is unknown."
RESEND_UNSAFE = (
    " The mail provider cannot recognise a resend of the same email (no idempotency key, or its "
    "memory of the key has expired), so a person must check before it is sent again."
)
LEASE_LOST = "Another worker took over this email while this attempt was running."
AWAITING_REVIEW = "The notification is {status} and waits for a person; this delivery changed nothing."
ORDER_MISSING = "The order {order_id} does not exist in the database."
SUBJECT_UNRECORDED = (
    "No email is recorded for the {aggregate} {subject_id}: it does not exist in the database."
)


def holder_gone(providers: list[str]) -> str:
    """Why an email with an unknown outcome cannot be resent: the provider that may have it is
    not one of those configured now (or two may have it), and another provider would not
    recognise the resend."""
    return (
        f" The provider that may have it ({' and '.join(providers)}) is not the one this email could "
        "be resent through, and another provider would send it a second time: a person must check."
    )


TO_FALLBACK = " The provider definitely did not take it: it goes to the fallback provider."
