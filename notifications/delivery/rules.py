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
- A parcel's news (in transit, out for delivery, delivered, delivery failed:
  orders/parcel_progress.py): never before the confirmation, the cancellation of a cancelled
  order, nor that parcel's "shipped" email; it waits as a refund's does. All but "delivered" are
  skipped once the parcel is delivered by their turn (old news; news after "delivered" records
  no email at all); and every one is skipped with the parcel's "shipped" email (the customer
  never heard of the parcel). Only delivery ends them: the parcel went back in transit before
  an email's turn still sends it, since the news a new attempt brings records no second email
  of the kind. "In transit" alone is skipped too once a later step recorded its email (the
  customer is told newer news, and the broker keeps no order between the two).
- A change of the order (orders/edits.py): never before the confirmation, nor before the email
  of the change before it (each tells what changed from the one before); skipped if the order
  is cancelled by its turn (the cancellation is the news).
The claim holds the order's row lock while it decides, and a cancel takes the same lock to
change the order, so a decision never rests on a state that is changing under it.

The decisions take plain values (`order_state_decide`, then `earlier_emails_decide` on the
statuses of the emails `emails_followed` names), so each rule is checked without a database
(tests/unit/test_delivery_rules.py); `notification_decide` reads what they need, and reads the
earlier emails only when the order's state leaves the decision to them.
"""

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from django.conf import settings

from notifications.delivery.email_order import (
    KINDS_WITH_A_RULE,
    PARCEL_NEWS_KINDS,
    EarlierEmail,
    earlier_statuses,
)
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import Notification, Suppression
from notifications.tracking.suppression import suppression_reason
from orders.models import Order, ParcelStatus, Shipment
from orders.parcel_progress import LATER_STEP_EVENTS


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
CONFIRMATION_SENDING_REASON = "The order confirmation is being sent right now; the cancellation follows it."
CANCELLED_FIRST_REASON = "The order was cancelled before its confirmation was sent."
ERASED_REASON = "Not sent: the customer's personal data was erased at their request."
CANCELLED_BEFORE_CHANGE_REASON = (
    "The order was cancelled before this change was told: its cancellation is the news."
)
DELIVERED_SINCE_REASON = "The parcel was delivered before this email's turn: old news."
LATER_STEP_SINCE_REASON = "News of a later step of the parcel came before this email's turn: old news."
LATER_STEP_KINDS = frozenset(EMAIL_KIND_OF_EVENT[event_type] for event_type in LATER_STEP_EVENTS)
PARCEL_UNTOLD_REASON = 'The parcel\'s "shipped" email was skipped: the customer never heard of the parcel.'
# An email of an order erased before it came (the customer's erasure, or the order's retention).
ORDER_ERASED_REASON = (
    "Not sent: the order's personal data was erased, at the customer's request or after its retention period."
)


def notification_decide(
    *, notification: Notification, order: Order, suppression: Suppression | None = None
) -> Decision:
    """`suppression`: the address's active suppression, if it has one."""
    cancelled = order.status == Order.Status.CANCELLED
    decision = order_state_decide(
        notification.kind,
        erased=order.erased_at is not None,
        suppressed=suppression_reason(suppression) if suppression is not None else "",
        cancelled=cancelled,
    )
    if decision is not None:
        return decision
    if notification.kind in PARCEL_NEWS_KINDS and notification.subject_id is not None:
        decision = _parcel_news_decide_now(notification.kind, notification.subject_id)
        if decision is not None:
            return decision
    earlier = earlier_statuses(notification, order, cancelled=cancelled)
    return earlier_emails_decide(notification.kind, cancelled=cancelled, earlier=earlier)


def order_state_decide(kind: str, *, erased: bool, suppressed: str, cancelled: bool) -> Decision | None:
    """What the order's state alone decides; None when the decision rests on the emails that
    go before this one. `suppressed`: why the address is on the suppression list, or ""."""
    if erased:  # no address to send to, and the customer asked for none
        return Decision(Action.SKIP, ORDER_ERASED_REASON)
    if suppressed:  # it bounced hard or its owner complained: never again
        return Decision(Action.SKIP, suppressed)
    if kind not in KINDS_WITH_A_RULE:
        raise ValueError(f"no rule for notification kind {kind!r}")
    if kind == Notification.Kind.ORDER_CONFIRMATION:
        return Decision(Action.SKIP, CANCELLED_FIRST_REASON) if cancelled else SEND
    if kind == Notification.Kind.ORDER_CANCELLATION and not cancelled:
        return Decision(Action.SKIP, "The order is not cancelled.")
    if kind == Notification.Kind.ORDER_EDIT and cancelled:
        return Decision(Action.SKIP, CANCELLED_BEFORE_CHANGE_REASON)
    return None


def parcel_news_decide(kind: str, *, progress: str | None, later_step_told: bool = False) -> Decision | None:
    """News of a parcel delivered by the email's turn is old news, skipped, but for the
    "delivered" email itself; so is "in transit" once a later step recorded its email (None: the
    emails before it decide). `progress`: the parcel's status now; `later_step_told`: an email
    of a later step exists for the parcel."""
    if kind == Notification.Kind.PARCEL_DELIVERED:
        return None
    if progress == ParcelStatus.DELIVERED:
        return Decision(Action.SKIP, DELIVERED_SINCE_REASON)
    if kind == Notification.Kind.PARCEL_IN_TRANSIT and later_step_told:
        return Decision(Action.SKIP, LATER_STEP_SINCE_REASON)
    return None


def _parcel_news_decide_now(kind: str, parcel: uuid.UUID) -> Decision | None:
    """`parcel_news_decide` on the parcel as it is now, read under the claim's lock (its news
    takes the same order's lock): its status, and for "in transit" whether a later step's
    email exists."""
    progress = Shipment.objects.filter(pk=parcel).values_list("progress", flat=True).first()
    later_step_told = (
        kind == Notification.Kind.PARCEL_IN_TRANSIT
        and Notification.objects.filter(subject_id=parcel, kind__in=LATER_STEP_KINDS).exists()
    )
    return parcel_news_decide(kind, progress=progress, later_step_told=later_step_told)


def earlier_emails_decide(
    kind: str, *, cancelled: bool, earlier: Mapping[EarlierEmail, str | None]
) -> Decision:
    """The decision on the status of each email that goes before this one (`emails_followed`).
    One missing or None is not recorded (an order from before it was recorded with its event):
    it holds nothing up."""
    confirmation = earlier.get(EarlierEmail.CONFIRMATION)
    if kind == Notification.Kind.ORDER_CANCELLATION:
        # Never "cancelled" before "confirmed"; a confirmation still pending will be skipped,
        # and one with a person does not hold the news of the cancellation.
        if confirmation == Notification.Status.SENDING:
            return Decision(Action.WAIT, CONFIRMATION_SENDING_REASON)
        return SEND
    if kind == Notification.Kind.ORDER_SHIPMENT and cancelled and confirmation == Notification.Status.SKIPPED:
        return Decision(Action.SKIP, CANCELLED_FIRST_REASON)  # the customer never heard of the order
    if kind in PARCEL_NEWS_KINDS and earlier.get(EarlierEmail.PARCEL) == Notification.Status.SKIPPED:
        return Decision(Action.SKIP, PARCEL_UNTOLD_REASON)
    return _after(earlier)


def _after(earlier: Mapping[EarlierEmail, str | None]) -> Decision:
    """Send once every earlier email is done (sent, skipped or rejected); wait, saying which,
    while one is on its way or with a person."""
    for named in EarlierEmail:  # the confirmation, then the cancellation, then the parcel's email
        status = earlier.get(named)
        if status in Notification.UNFINISHED_STATUSES:
            return Decision(
                Action.WAIT,
                f"It follows {named}, which is not sent yet.",
                retry_after=settings.EMAIL_FOLLOWING_WAIT_SECONDS,
            )
        if status in Notification.NEEDS_PERSON_STATUSES:
            return Decision(
                Action.WAIT,
                f"It follows {named}, which is {Notification.Status(status).label} and waits for a person: "
                "retry or reject that one first.",
                retry_after=settings.EMAIL_FOLLOWING_PERSON_WAIT_SECONDS,
            )
    return SEND
