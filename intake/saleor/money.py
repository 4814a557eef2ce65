"""Saleor's money in an order, as this service's subscription query selects it: its amounts
(`Money`), what Saleor says was charged, and what went back.

What came in is what is charged now (`totalCharged`: each transaction's charged amount, each
older payment's captured amount, less what their refunds gave back) plus what went back, as
Shopify's is its current total less what is due plus what went back (intake/shopify/payments.py).
So an order charged in part (its charge status PARTIAL: a deposit, or an edit's balance due) is
paid that much. Where Saleor says the order is paid (`isPaid`, FULL, OVERCHARGED), its word
stands for the total, as before; a delivery of a webhook registered with an earlier query, which
selects no `totalCharged`, is read by that word alone, and a PARTIAL then counts nothing."""

from dataclasses import dataclass
from typing import Any

from intake.payload_fields import mapping, objects, required, text, to_minor
from intake.shapes import PlatformRefund, Unusable, refunded_minor
from orders.content import NAME_TEXT

PAID_CHARGE_STATUSES = frozenset({"FULL", "OVERCHARGED"})
PAYMENT_UNREAD = (
    "not counted as paid: Saleor says PARTIAL (charged in part), but the delivery has no "
    "totalCharged to tell how much: the webhook's subscription query is an earlier one; paste the "
    "query the shop's page shows"
)


@dataclass(frozen=True)
class SaleorPayment:
    paid: bool
    paid_in_full: bool
    received_minor: int | None
    payment_unread: str


def payment_of(order: dict[str, Any], currency: str, refunds: list[PlatformRefund]) -> SaleorPayment:
    """What came in: the total where Saleor says the order is paid (charged_in_full); else what
    is charged now plus what went back, where the delivery says what is charged."""
    in_full = charged_in_full(order)
    charged = None if in_full else _charged_minor(order, currency)
    if charged is None:
        partial = not in_full and not refunds and order.get("chargeStatus") == "PARTIAL"
        return SaleorPayment(in_full or bool(refunds), in_full, None, PAYMENT_UNREAD if partial else "")
    received = charged + refunded_minor(refunds)
    return SaleorPayment(received > 0, False, received, "")


def _charged_minor(order: dict[str, Any], currency: str) -> int | None:
    """`totalCharged` in minor units; None where the query did not select it, or it is in another
    currency than the order's (Saleor keeps one per order: never read as the order's)."""
    charged = order.get("totalCharged")
    if charged is None:
        return None
    if mapping(charged, "totalCharged").get("currency", currency) != currency:
        return None
    return max(0, money_minor(charged, "totalCharged", currency))


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
