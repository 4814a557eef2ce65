"""Which email an order gets, decided on the order's state when the email's turn comes.

The rules (docs/failure-handling.md shows them per ordering of events):
- Any email: skipped while its address is on the suppression list (a hard bounce or a
  complaint, notifications/tracking/suppression.py).
- Confirmation: sent unless the order is cancelled by then; then `skipped`. Once sent, it
  stays sent: an email cannot be taken back.
- Cancellation: sent for every cancelled order, but never before a confirmation that is
  being sent at that moment: it waits until the confirmation is done, so the customer
  never reads "cancelled" before "confirmed".
- Refund: never before the confirmation, nor before the cancellation of a cancelled order,
  nor before the email of the parcel it answers (a return); it waits as a shipment's does.
  A refund announced with the cancellation has no email of its own: the cancellation tells it.
- Shipment: never before the confirmation. It waits while the confirmation is to be sent
  (pending, sending) or waits for a person (failed, needs review), and goes once the
  confirmation is sent or a reviewer rejected it (that decision was about that email, not the
  parcel). A confirmation skipped because the order was cancelled first skips the shipment's
  email too: the customer never heard of the order.
The claim holds the order's row lock while it decides, and a cancel takes the same lock to
change the order, so a decision never rests on a state that is changing under it.
"""

from dataclasses import dataclass
from enum import StrEnum

from django.conf import settings

from notifications.models import Notification, Suppression
from notifications.tracking.suppression import suppression_reason
from orders.models import Order, Refund


class Action(StrEnum):
    SEND = "send"
    SKIP = "skip"
    WAIT = "wait"


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str = ""
    # How long a WAIT waits before it looks again; 0: a moment (another worker is at it).
    retry_after: float = 0


SEND = Decision(Action.SEND)
ERASED_REASON = "Not sent: the customer's personal data was erased at their request."
# An email of an order erased before it came (the customer's erasure, or the order's retention).
ORDER_ERASED_REASON = (
    "Not sent: the order's personal data was erased, at the customer's request or after its retention period."
)


def notification_decide(
    *, notification: Notification, order: Order, suppression: Suppression | None = None
) -> Decision:
    """`suppression`: the address's active suppression, if it has one."""
    if order.erased_at is not None:  # no address to send to, and the customer asked for none
        return Decision(Action.SKIP, ORDER_ERASED_REASON)
    if suppression is not None:  # it bounced hard or its owner complained: never again
        return Decision(Action.SKIP, suppression_reason(suppression))
    cancelled = order.status == Order.Status.CANCELLED
    if notification.kind == Notification.Kind.ORDER_CONFIRMATION:
        if cancelled:
            return Decision(Action.SKIP, "The order was cancelled before its confirmation was sent.")
        return SEND
    if notification.kind == Notification.Kind.ORDER_CANCELLATION:
        if not cancelled:
            return Decision(Action.SKIP, "The order is not cancelled.")
        confirmation = Notification.objects.filter(
            order=order, kind=Notification.Kind.ORDER_CONFIRMATION
        ).first()
        if confirmation is not None and confirmation.status == Notification.Status.SENDING:
            return Decision(
                Action.WAIT, "The order confirmation is being sent right now; the cancellation follows it."
            )
        return SEND
    if notification.kind == Notification.Kind.ORDER_SHIPMENT:
        confirmation = _email_of(order, Notification.Kind.ORDER_CONFIRMATION)
        if confirmation is not None and confirmation.status == Notification.Status.SKIPPED and cancelled:
            return Decision(Action.SKIP, "The order was cancelled before its confirmation was sent.")
        return _after([(confirmation, "the order confirmation")])
    if notification.kind == Notification.Kind.ORDER_REFUND:
        return _after(_what_a_refund_follows(notification, order))
    raise ValueError(f"no rule for notification kind {notification.kind!r}")


def _what_a_refund_follows(notification: Notification, order: Order) -> list[tuple[Notification | None, str]]:
    """The confirmation; the cancellation, for a cancelled order (the refund is news after it);
    the email of the parcel it answers, if it answers one."""
    earlier = [(_email_of(order, Notification.Kind.ORDER_CONFIRMATION), "the order confirmation")]
    if order.status == Order.Status.CANCELLED:
        earlier.append((_email_of(order, Notification.Kind.ORDER_CANCELLATION), "the cancellation"))
    refunds = (
        Refund.objects.filter(pk=notification.subject_id)
        if notification.subject_id
        else Refund.objects.none()
    )
    shipment_id = refunds.values_list("shipment_id", flat=True).first()
    if shipment_id is not None:
        parcel = Notification.objects.filter(
            kind=Notification.Kind.ORDER_SHIPMENT, subject_id=shipment_id
        ).first()
        earlier.append((parcel, "the email of the parcel it answers"))
    return earlier


def _email_of(order: Order, kind: str) -> Notification | None:
    return Notification.objects.filter(order=order, kind=kind, subject_id__isnull=True).first()


def _after(earlier: list[tuple[Notification | None, str]]) -> Decision:
    """Send once every earlier email is done (sent, skipped or rejected); wait, saying which,
    while one is on its way or with a person. A missing one (an order from before it was
    recorded with its event) holds nothing up."""
    for email, named in earlier:
        if email is None:
            continue
        if email.status in Notification.UNFINISHED_STATUSES:
            return Decision(
                Action.WAIT,
                f"It follows {named}, which is not sent yet.",
                retry_after=settings.EMAIL_FOLLOWING_WAIT_SECONDS,
            )
        if email.status in Notification.NEEDS_PERSON_STATUSES:
            return Decision(
                Action.WAIT,
                f"It follows {named}, which is {email.get_status_display()} and waits for a person: "
                "retry or reject that one first.",
                retry_after=settings.EMAIL_FOLLOWING_PERSON_WAIT_SECONDS,
            )
    return SEND
