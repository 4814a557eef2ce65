"""What Shopify's order says came in (intake/platform_payments.py counts it).

Shopify says what is still due, `total_outstanding`: its current total less the net of what came
in and went back. What came in is then the current total less what is due, plus what went back;
never what is due alone: a cancellation takes every line off the current total, and nothing is due
then whether an edit's balance came in or not. So an order first seen paid in part
(`partially_paid`: a deposit, or an edit's balance due) counts as paid that much, and one first
seen edited and refunded counts as paid what came in, not its edited total. Those figures are in
the shop's currency, so an order paid in another is read by its status, as a payload without them
is (an older API version): `paid`, `partially_refunded` and `refunded` stand for its total; a
`partially_paid` with no amount to read counts nothing, with the reason."""

from dataclasses import dataclass
from typing import Any

from intake.payload_fields import text, to_minor
from intake.shapes import PlatformRefund, refunded_minor
from orders.content import SHORT_TEXT

PAID_STATUSES = frozenset({"paid", "partially_refunded", "refunded"})
PARTIALLY_PAID = "partially_paid"
PAYMENT_UNREAD = (
    "not counted as paid: Shopify says partially_paid, but how much came in cannot be read (no "
    "total_outstanding and current_total_price in the order's currency)"
)


@dataclass(frozen=True)
class ShopifyPayment:
    paid: bool
    paid_in_full: bool
    received_minor: int | None
    payment_unread: str


def payment_of(
    payload: dict[str, Any], currency: str, total: int, refunds: list[PlatformRefund]
) -> ShopifyPayment:
    """What came in toward `total` (the order's total now, its edits' included). Its
    `partially_refunded` and `refunded` say that money went back, not how much came in first (what
    went back counts for that)."""
    status = text(payload.get("financial_status") or "", SHORT_TEXT, "financial_status")
    received = _received(payload, currency, refunds)
    if received is None:
        in_full = status == "paid"
        unread = PAYMENT_UNREAD if status == PARTIALLY_PAID else ""
        return ShopifyPayment(status in PAID_STATUSES, in_full, None, unread)
    paid = status in PAID_STATUSES or (status == PARTIALLY_PAID and received > 0)
    return ShopifyPayment(paid, received >= total, received, "")


def _received(payload: dict[str, Any], currency: str, refunds: list[PlatformRefund]) -> int | None:
    """The current total less what is due, plus what went back; None when the figures are not
    there, or are in the shop's currency while the order is in another."""
    outstanding, current = payload.get("total_outstanding"), payload.get("current_total_price")
    if outstanding is None or current is None or str(payload.get("currency") or currency) != currency:
        return None
    net = to_minor(current, "current_total_price", currency) - to_minor(
        outstanding, "total_outstanding", currency
    )
    return max(0, net + refunded_minor(refunds))
