"""Which emails of an order go before which (docs/email-content.md, "The emails of an order,
in the order a customer reads them"): the one table the delivery rules (rules.py) wait by."""

from enum import StrEnum

from notifications.models import Notification


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
    Notification.Kind.PARCEL_OUT_FOR_DELIVERY: AFTER_ITS_PARCEL,
    Notification.Kind.PARCEL_DELIVERED: AFTER_ITS_PARCEL,
    Notification.Kind.PARCEL_DELIVERY_FAILED: AFTER_ITS_PARCEL,
}
KINDS_WITH_A_RULE = frozenset(FOLLOWS)
PARCEL_NEWS_KINDS = frozenset(
    {
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
