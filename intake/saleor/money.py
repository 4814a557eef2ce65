"""Saleor's money in an order, as this service's subscription query selects it: its amounts
(`Money`), what Saleor says was charged, and what went back."""

from typing import Any

from intake.payload_fields import objects, required, text, to_minor
from intake.shapes import PlatformRefund, Unusable
from orders.content import NAME_TEXT

PAID_CHARGE_STATUSES = frozenset({"FULL", "OVERCHARGED"})


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
