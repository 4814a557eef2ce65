"""Which emails of an order go before which (docs/email-content.md, "The emails of an order,
in the order a customer reads them"): the one table the delivery rules (rules.py) wait by, and
the statuses of those emails as the rules read them for one email."""

import uuid
from enum import StrEnum

from notifications.models import Notification
from orders.models import Order, OrderEdit, Refund


class EarlierEmail(StrEnum):
    """An email of the order that goes before another, as the waiting one's reason names it;
    looked at in this order."""

    CONFIRMATION = "the order confirmation"
    CANCELLATION = "the cancellation"
    PARCEL = 'the parcel\'s "shipped" email'
    EARLIER_EDIT = "the email of the change before it"


# Which emails go before each kind (docs/email-content.md, "The emails of an order, in the
# order a customer reads them"). A refund follows the cancellation only of a cancelled order
# (the refund is news after it), and a parcel's email only if it answers a parcel (a return).
# A cancellation waits only for a confirmation being sent.
AFTER_ITS_PARCEL = (EarlierEmail.CONFIRMATION, EarlierEmail.CANCELLATION, EarlierEmail.PARCEL)
FOLLOWS: dict[str, tuple[EarlierEmail, ...]] = {
    Notification.Kind.ORDER_CONFIRMATION: (),
    Notification.Kind.ORDER_CANCELLATION: (EarlierEmail.CONFIRMATION,),
    Notification.Kind.ORDER_SHIPMENT: (EarlierEmail.CONFIRMATION,),
    Notification.Kind.ORDER_REFUND: (
        EarlierEmail.CONFIRMATION,
        EarlierEmail.CANCELLATION,
        EarlierEmail.PARCEL,
    ),
    Notification.Kind.ORDER_EDIT: (EarlierEmail.CONFIRMATION, EarlierEmail.EARLIER_EDIT),
    Notification.Kind.ORDER_INVOICE: (EarlierEmail.CONFIRMATION,),
    # A parcel's news: as a refund, less the parcel it answers, which is the news's own.
    Notification.Kind.PARCEL_IN_TRANSIT: AFTER_ITS_PARCEL,
    Notification.Kind.PARCEL_OUT_FOR_DELIVERY: AFTER_ITS_PARCEL,
    Notification.Kind.PARCEL_DELIVERED: AFTER_ITS_PARCEL,
    Notification.Kind.PARCEL_DELIVERY_FAILED: AFTER_ITS_PARCEL,
}
KINDS_WITH_A_RULE = frozenset(FOLLOWS)
PARCEL_NEWS_KINDS = frozenset(
    {
        Notification.Kind.PARCEL_IN_TRANSIT,
        Notification.Kind.PARCEL_OUT_FOR_DELIVERY,
        Notification.Kind.PARCEL_DELIVERED,
        Notification.Kind.PARCEL_DELIVERY_FAILED,
    }
)


def emails_followed(
    kind: str, *, cancelled: bool, answers_parcel: bool, follows_edit: bool = False
) -> tuple[EarlierEmail, ...]:
    """The emails of the order that go before one of this kind, in the order they are looked at.
    `follows_edit`: a change of the order with a change before it."""
    return tuple(
        earlier
        for earlier in FOLLOWS[kind]
        if (earlier != EarlierEmail.CANCELLATION or cancelled)
        and (earlier != EarlierEmail.PARCEL or answers_parcel)
        and (earlier != EarlierEmail.EARLIER_EDIT or follows_edit)
    )


def earlier_statuses(
    notification: Notification, order: Order, *, cancelled: bool
) -> dict[EarlierEmail, str | None]:
    """The status of each email that goes before this one, read under the claim's lock."""
    parcel = _parcel_answered(notification)
    edit_before = _edit_before(notification)
    followed = emails_followed(
        notification.kind,
        cancelled=cancelled,
        answers_parcel=parcel is not None,
        follows_edit=edit_before is not None,
    )
    return {
        earlier: _status_of(earlier, order=order, parcel=parcel, edit_before=edit_before)
        for earlier in followed
    }


def _edit_before(notification: Notification) -> uuid.UUID | None:
    """The change of the order before the one a change's email tells; None for any other email
    and for the first change."""
    if notification.kind != Notification.Kind.ORDER_EDIT or not notification.subject_id:
        return None
    edit = OrderEdit.objects.filter(pk=notification.subject_id).values("order_id", "from_version").first()
    if edit is None:
        return None
    return (
        OrderEdit.objects.filter(order_id=edit["order_id"], to_version=edit["from_version"])
        .values_list("id", flat=True)
        .first()
    )


def _parcel_answered(notification: Notification) -> uuid.UUID | None:
    """The shipment a refund answers (a return), or a parcel's news is about; None for any
    other email."""
    if notification.kind in PARCEL_NEWS_KINDS:
        return notification.subject_id
    if notification.kind != Notification.Kind.ORDER_REFUND or not notification.subject_id:
        return None
    return Refund.objects.filter(pk=notification.subject_id).values_list("shipment_id", flat=True).first()


def _status_of(
    earlier: EarlierEmail, *, order: Order, parcel: uuid.UUID | None, edit_before: uuid.UUID | None = None
) -> str | None:
    if earlier == EarlierEmail.EARLIER_EDIT:
        emails = Notification.objects.filter(kind=Notification.Kind.ORDER_EDIT, subject_id=edit_before)
    elif earlier == EarlierEmail.PARCEL:
        emails = Notification.objects.filter(kind=Notification.Kind.ORDER_SHIPMENT, subject_id=parcel)
    elif earlier == EarlierEmail.CANCELLATION:
        emails = Notification.objects.filter(
            order=order, kind=Notification.Kind.ORDER_CANCELLATION, subject_id__isnull=True
        )
    else:
        emails = Notification.objects.filter(
            order=order, kind=Notification.Kind.ORDER_CONFIRMATION, subject_id__isnull=True
        )
    return emails.values_list("status", flat=True).first()
