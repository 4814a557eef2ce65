"""What WooCommerce's order says came in (intake/platform_payments.py counts it).

WooCommerce keeps no record of how much came in: `date_paid` is set once, at the first payment,
and an edit leaves no balance due in any field. So an order it says is paid (a `date_paid`, or
the status processing or completed) is taken as paid in full once the shop moved it on: not
while it waits for a payment, nor by a status that proves no payment. One first seen refunded
(its payment came in, and all of it went back, by the status WooCommerce sets when its refunds
reach the total) is paid what its refunds gave back: neither owed nor kept; one first seen
cancelled with a payment date likewise (how much came in and whether it went back is unknown)."""

from dataclasses import dataclass
from typing import Any

from intake.shapes import PlatformRefund, refunded_minor

PAID_STATUSES = frozenset({"processing", "completed", "delivered"})
# The statuses of an order waiting for a payment. WooCommerce edits an order's lines only on hold
# or pending, so a paid order an edit raised is saved so, its `date_paid` kept from its first
# payment, until the shop takes the balance and moves it on: not paid in full until then. The
# deposits extensions' statuses (WooCommerce Deposits' partial-payment, Webtomizer's
# partially-paid) wait for the balance too. How much came in meanwhile is in no field of the
# order: a payment reported so is not counted (PlatformOrder.received_minor 0) until it moves on.
AWAITING_PAYMENT_STATUSES = frozenset({"pending", "on-hold", "failed", "partial-payment", "partially-paid"})
REFUNDED = "refunded"
# The statuses that prove no balance came in: refunded, which the refunds themselves set (one
# recorded by hand proves nothing), and cancelled, which an order waiting for its balance gets as
# readily as a paid one: an edit's balance never collected has nothing to give back.
NO_PAYMENT_PROVEN_STATUSES = frozenset({REFUNDED, "cancelled"})
PAYMENT_UNREAD = (
    "not counted as paid: WooCommerce says a payment came in (date_paid) but the order waits for "
    "another (status {status}), and its order does not say how much came in; it counts once the "
    "shop moves the order on (processing, completed)"
)
REFUNDED_UNREAD = (
    "not counted as paid: WooCommerce says the order was paid (date_paid) and {status}, but lists "
    "no refund to tell how much came in and went back"
)


@dataclass(frozen=True)
class WooCommercePayment:
    paid: bool
    paid_in_full: bool
    received_minor: int | None
    payment_unread: str
    refunded_in_full: bool


def payment_of(payload: dict[str, Any], status: str, refunds: list[PlatformRefund]) -> WooCommercePayment:
    """What the order's `date_paid` and `status` say of its payment (WooCommerce's refunds, which
    the shop may record by hand, never prove one: PlatformOrder.refunds_prove_payment)."""
    paid = bool(payload.get("date_paid_gmt")) or status in PAID_STATUSES
    waiting = paid and status in AWAITING_PAYMENT_STATUSES
    # A cancelled order with a payment date is taken as one refunded: WooCommerce sets refunded
    # when its refunds reach the total, so its money went back outside WooCommerce, or was a
    # deposit never completed, or was kept; its order says none of it. Paid what its refunds gave
    # back, neither owed nor kept; nothing, the reason saying why, when it lists none.
    refunded_in_full = paid and status in NO_PAYMENT_PROVEN_STATUSES
    unread = ""
    if waiting:
        unread = PAYMENT_UNREAD.format(status=status)
    elif refunded_in_full and not refunded_minor(refunds):
        unread = REFUNDED_UNREAD.format(status=status)
    return WooCommercePayment(
        paid=paid,
        paid_in_full=paid and not waiting and status not in NO_PAYMENT_PROVEN_STATUSES,
        received_minor=0 if waiting else None,
        payment_unread=unread,
        refunded_in_full=refunded_in_full,
    )
