"""Why an email is where it is, in words for the shop's API client.

`last_error` is written for our reviewers and may hold a reviewer's name and comment
("Rejected by …: …", "Marked sent by …: <evidence>"), the mail provider's answer, a template's
error and the customer's address. None of it is read here: the client's words follow from the
status and the kind of failure alone, so whatever a writer of `last_error` puts there stays in
the admin.
"""

from messaging.errors import InFlightError, PermanentError, RetriesExhaustedError, TransientError, WaitError
from notifications.content.snapshot import snapshot_exists
from notifications.models import Notification
from orders.models import Order

Status = Notification.Status

OUR_TEAM_REVIEWS = " Our team reviews it."
PENDING = {
    WaitError.error_class: (
        "Waiting for the mail provider, which is paused, recovering or at its sending rate; "
        "the email goes out as soon as it can."
    ),
    TransientError.error_class: (
        "The mail provider was briefly unavailable; the email will be sent again automatically."
    ),
    InFlightError.error_class: "The mail provider is still working on an earlier attempt of this email.",
}
FAILED = {
    PermanentError.error_class: (
        "Not sent: the mail provider refused it for good, most often because the address does "
        "not exist or cannot receive email." + OUR_TEAM_REVIEWS
    ),
    RetriesExhaustedError.error_class: (
        "Not sent: the mail provider stayed unavailable through every retry." + OUR_TEAM_REVIEWS
    ),
}
NOT_PREPARED = "Not sent: the email could not be prepared because of a fault on our side." + OUR_TEAM_REVIEWS
SUPPRESSED = (
    "Not sent: the address is on our do-not-send list because an earlier email to it bounced "
    "or was reported as spam."
)
BY_STATUS: dict[str, str] = {
    Status.PENDING: "Waiting to be sent.",
    Status.SENDING: "Being handed to the mail provider now.",
    Status.SENT: "Sent: the mail provider accepted the email.",
    Status.FAILED: "Not sent: the email failed." + OUR_TEAM_REVIEWS,
    Status.NEEDS_REVIEW: (
        "In review: the mail provider's answer was lost, so we cannot tell yet whether the email "
        "went out. It is not sent again until we know, so the customer never gets it twice."
    ),
    Status.REJECTED: "Not sent: our team decided not to send this email.",
}


def notification_client_reason(notification: Notification) -> str:
    """The reason the API shows. Reads the notification's order (prefetched with it by the
    API's selector), never `last_error`."""
    status, error_class = notification.status, notification.error_class
    if status == Status.PENDING and error_class in PENDING:
        return PENDING[error_class]
    if (
        status == Status.FAILED
        and error_class == PermanentError.error_class
        and not snapshot_exists(notification)
    ):
        return NOT_PREPARED  # the first attempt renders the email: a failure before it is a template's
    if status == Status.FAILED and error_class in FAILED:
        return FAILED[error_class]
    if status == Status.SKIPPED:
        return _skipped(notification)
    return BY_STATUS.get(status, "")


def _skipped(notification: Notification) -> str:
    """The delivery rules (notifications/delivery/rules.py) skip an email to a suppressed
    address, a confirmation of a cancelled order and a cancellation of an order that is not."""
    cancelled = notification.order.status == Order.Status.CANCELLED
    if notification.kind == Notification.Kind.ORDER_CONFIRMATION and cancelled:
        return "Not sent: the order was cancelled before its confirmation went out."
    if notification.kind == Notification.Kind.ORDER_CANCELLATION and not cancelled:
        return "Not sent: the order is not cancelled."
    return SUPPRESSED
