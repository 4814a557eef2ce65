"""Saleor's money in an order, as this service's subscription query selects it: its amounts
(`Money`), what Saleor says was charged, and what went back.

What came in is what is charged now (`totalCharged`: each transaction's charged amount, each
older payment's captured amount, less what their refunds gave back) plus what went back, as
Shopify's is its current total less what is due plus what went back (intake/shopify/payments.py).
So an order charged in part (its charge status PARTIAL: a deposit, or an edit's balance due) is
paid that much. Where Saleor says the order is paid (`isPaid`, FULL, OVERCHARGED), its word
stands for the total, as before. Short of it, a `totalCharged` that cannot be read (a webhook
registered with an earlier query selects none; one in another currency is not the order's
money) leaves what went back, the least that came in: a PARTIAL with nothing back counts
nothing, and the delivery's reason says why."""

from dataclasses import dataclass
from typing import Any

from intake.payload_fields import mapping, objects, required, text, to_minor
from intake.shapes import PlatformRefund, Unusable, refunded_minor
from orders.content import NAME_TEXT, minor_to_amount

PAID_CHARGE_STATUSES = frozenset({"FULL", "OVERCHARGED"})
PARTIAL = "PARTIAL"
PAYMENT_UNREAD = (
    "not counted as paid: Saleor says PARTIAL (charged in part), but the delivery has no "
    "totalCharged to tell how much: the webhook's subscription query is an earlier one; paste the "
    "query the shop's page shows"
)
OTHER_CURRENCY = (
    "not counted as paid: Saleor says PARTIAL (charged in part), but its totalCharged is in "
    "{charged}, the order in {currency}: what was charged is not read as the order's money"
)
NOTHING_CHARGED = (
    "not counted as paid: Saleor says PARTIAL (charged in part), but its totalCharged is {amount} "
    "{currency} and nothing went back: nothing is proven to have come in"
)


@dataclass(frozen=True)
class SaleorPayment:
    paid: bool
    paid_in_full: bool
    received_minor: int | None
    payment_unread: str


def payment_of(order: dict[str, Any], currency: str, refunds: list[PlatformRefund]) -> SaleorPayment:
    """What came in: the total where Saleor says the order is paid (charged_in_full); else what
    is charged now plus what went back, where the delivery says what is charged in the order's
    currency; else what went back alone, the least that came in (never the total: that would
    invoice an order charged in part as paid, and let all of it be refunded)."""
    if charged_in_full(order):
        return SaleorPayment(True, True, None, "")
    charged, unread = _charged_minor(order, currency)
    received = (charged or 0) + refunded_minor(refunds)
    if received > 0 or order.get("chargeStatus") != PARTIAL:
        unread = ""
    return SaleorPayment(received > 0, False, received, unread)


def _charged_minor(order: dict[str, Any], currency: str) -> tuple[int | None, str]:
    """`totalCharged` in minor units (at least 0), or None with why it is not read: the query did
    not select it, or it is in another currency than the order's (Saleor keeps one per order:
    never read as the order's)."""
    charged = order.get("totalCharged")
    if charged is None:
        return None, PAYMENT_UNREAD
    named = mapping(charged, "totalCharged").get("currency", currency)
    if named != currency:
        return None, OTHER_CURRENCY.format(charged=named, currency=currency)
    amount = money_minor(charged, "totalCharged", currency)
    return max(0, amount), NOTHING_CHARGED.format(amount=minor_to_amount(amount, currency), currency=currency)


def money_minor(money: Any, field: str, currency: str) -> int:
    """A `Money`'s amount in minor units."""
    if not isinstance(money, dict) or money.get("amount") is None:
        raise Unusable(f"The payload has no {field}.amount.")
    return to_minor(money["amount"], field, currency)


def charged_in_full(order: dict[str, Any]) -> bool:
    """Saleor's own word that the order's total came in: `isPaid` (what is charged now covers the
    total) or the charge status FULL or OVERCHARGED (what is charged covers the total less the
    refunds granted). A refund takes its money off what is charged: an order whose money went
    back says PARTIAL or NONE, which tells how much is charged now, not how much came in (what
    went back counts for that: intake/platform_payments.py)."""
    # Only GraphQL's true and the enum's names: the string "false" is truthy, a list unhashable.
    status = order.get("chargeStatus")
    return order.get("isPaid") is True or (isinstance(status, str) and status in PAID_CHARGE_STATUSES)


def refunds_of(order: dict[str, Any], currency: str) -> list[PlatformRefund]:
    """Each successful refund of a transaction (REFUND_SUCCESS), or of a payment of the older
    payments API (the order's PAYMENT_REFUNDED events), that gave money back."""
    refunds = [
        PlatformRefund(
            refund_id=str(required(event, "id")),
            amount_minor=money_minor(event.get("amount"), "transactions[].events[].amount", currency),
            reason=text(event.get("message") or "", NAME_TEXT, "transactions[].events[].message"),
        )
        for transaction in objects(order.get("transactions"), "transactions")
        for event in objects(transaction.get("events"), "transactions[].events")
        if event.get("type") == "REFUND_SUCCESS"
    ]
    refunds += [
        PlatformRefund(
            refund_id=str(required(event, "id")),
            amount_minor=to_minor(required(event, "amount"), "events[].amount", currency),
        )
        for event in objects(order.get("events"), "events")
        if event.get("type") == "PAYMENT_REFUNDED"
    ]
    return [refund for refund in refunds if refund.amount_minor > 0]
