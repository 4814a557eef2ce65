"""What Shopify's order says came in (intake/platform_payments.py counts it).

Shopify says what is still due, `total_outstanding`: its current total less the net of what came
in and went back. What came in is then the current total less what is due, plus what went back;
never what is due alone: a cancellation takes every line off the current total, and nothing is due
then whether an edit's balance came in or not. So an order first seen paid in part
(`partially_paid`: a deposit, or an edit's balance due) counts as paid that much, and one first
seen edited and refunded counts as paid what came in, not its edited total.

`total_outstanding` is in the shop's currency, and has no `*_set` of both moneys as Shopify's other
amounts have. An order paid in another currency (its presentment currency) has what is due
converted at the order's own rate: the one between the two moneys of its `current_total_price_set`
(shop_money, presentment_money), rounded to the nearest minor unit of the order's currency, and
never to nothing while something is due. A payload without the figures (an older API version) is
read by its status: `paid`, `partially_refunded` and `refunded` stand for its total; a
`partially_paid` with no amount to read counts nothing, with the reason."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from intake.payload_fields import mapping, text, to_minor
from intake.shapes import PlatformRefund, refunded_minor
from intake.shopify.fields import minor
from orders.content import SHORT_TEXT, minor_to_amount

PAID_STATUSES = frozenset({"paid", "partially_refunded", "refunded"})
PARTIALLY_PAID = "partially_paid"
PAYMENT_UNREAD = (
    "not counted as paid: Shopify says partially_paid, but how much came in cannot be read (no "
    "total_outstanding and current_total_price, or no current_total_price_set in the shop's and "
    "the order's currencies to convert what is due)"
)
# Figures that add up to nothing: the platform's word that money came in is not taken for more
# than they prove, and the delivery says why the order stays unpaid.
NOTHING_CAME_IN = (
    "not counted as paid: Shopify says {status}, but its figures prove nothing came in: its current "
    "total {current} less what is due (total_outstanding, {due} {currency}) plus what went back "
    "({back})"
)


@dataclass(frozen=True)
class ShopifyPayment:
    paid: bool
    paid_in_full: bool
    received_minor: int | None
    payment_unread: str


@dataclass(frozen=True)
class _Figures:
    """Shopify's figures in the order's currency: its current total, what is due, what went back."""

    current: int
    due: int
    back: int

    def received(self) -> int:
        return max(0, self.current - self.due + self.back)


def payment_of(
    payload: dict[str, Any], currency: str, total: int, refunds: list[PlatformRefund]
) -> ShopifyPayment:
    """What came in toward `total` (the order's total now, its edits' included). Its
    `partially_refunded` and `refunded` say that money went back, not how much came in first (what
    went back counts for that)."""
    status = text(payload.get("financial_status") or "", SHORT_TEXT, "financial_status")
    figures = _figures(payload, currency, refunds)
    if figures is None:
        in_full = status == "paid"
        unread = PAYMENT_UNREAD if status == PARTIALLY_PAID else ""
        return ShopifyPayment(status in PAID_STATUSES, in_full, None, unread)
    received = figures.received()
    said_paid = status in PAID_STATUSES or status == PARTIALLY_PAID
    unread = ""
    if said_paid and received == 0:
        amounts = {key: minor_to_amount(value, currency) for key, value in vars(figures).items()}
        unread = NOTHING_CAME_IN.format(status=status, currency=currency, **amounts)
    paid = status in PAID_STATUSES or (status == PARTIALLY_PAID and received > 0)
    return ShopifyPayment(paid, received >= total, received, unread)


def _figures(payload: dict[str, Any], currency: str, refunds: list[PlatformRefund]) -> _Figures | None:
    """The current total, what is due and what went back, in the order's currency; None when the
    figures are not there, or what is due cannot be put into the order's currency."""
    outstanding, current = payload.get("total_outstanding"), payload.get("current_total_price")
    if outstanding is None or current is None:
        return None
    due = _due_in_order_currency(payload, currency)
    if due is None:
        return None
    return _Figures(minor(payload, "current_total_price", currency), due, refunded_minor(refunds))


def _due_in_order_currency(payload: dict[str, Any], currency: str) -> int | None:
    """`total_outstanding` (the shop's currency) in the order's: as it is when the two are one;
    else at the rate of the order's `current_total_price_set`, whose two moneys
    must name the two currencies (None when they do not, or its shop money is nothing to take a
    rate from). The shop's currency is its `currency`, or, left out, its shop money's."""
    money_set = mapping(payload.get("current_total_price_set"), "current_total_price_set")
    shop = mapping(money_set.get("shop_money"), "current_total_price_set.shop_money")
    shown = mapping(money_set.get("presentment_money"), "current_total_price_set.presentment_money")
    shop_currency = str(payload.get("currency") or shop.get("currency_code") or currency)
    due_in_shop = to_minor(payload["total_outstanding"], "total_outstanding", shop_currency)
    if shop_currency == currency:
        return due_in_shop
    if (shop.get("currency_code"), shown.get("currency_code")) != (shop_currency, currency):
        return None
    shop_minor = to_minor(shop.get("amount"), "current_total_price_set.shop_money.amount", shop_currency)
    shown_minor = to_minor(shown.get("amount"), "current_total_price_set.presentment_money.amount", currency)
    if shop_minor <= 0:
        return due_in_shop if due_in_shop <= 0 else None  # nothing to take a rate from
    due = (Decimal(due_in_shop) * shown_minor / shop_minor).to_integral_value(rounding=ROUND_HALF_UP)
    return max(int(due), 1) if due_in_shop > 0 else int(due)
