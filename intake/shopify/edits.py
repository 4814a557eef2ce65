"""Shopify's order as it is after its edits: Shopify keeps each line's ordered `quantity` and
says what is left of it in `current_quantity`, and the order's `current_total_price` and
`current_total_tax` follow; an item added by an edit is a line of its own.

Shopify's "current" figures leave out what was refunded as well as what an edit removed. A
refund is told by its own email (intake/apply.py records it), so what the refunds that move
money took is added back, as soon as they are made (their money may still be pending at the
payment provider): the order as it is now is what was ordered, less what edits removed, plus
what they added. A refund that moves no money (a restock) is an edit's removal, and stays
removed. An order whose lines all kept their quantity is read from its ordered figures, as
Shopify created it; the current figures are the way to read it only when those do not add up
(an edit that only added a line, if Shopify's `total_price` kept the total before it)."""

from typing import Any

from intake.payload_fields import content_check, count, objects
from intake.shapes import Unusable
from intake.shopify.fields import minor

EDIT_LEFT_OUT = "The order's edit could not be read, so it was not applied"
# A refund's transactions that give money back: done, or on their way (its email follows once done).
MONEY_BACK_STATUSES = ("success", "pending")


def content_as_now(payload: dict[str, Any], ordered: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The order's content now, checked, and "" — or its content as ordered and why its edit
    could not be read (the order's other news is applied, its edit is not). Unusable when
    neither reading adds up."""
    try:
        quantities = _quantities_now(payload, ordered)
    except Unusable as exc:
        content_check(ordered)
        return ordered, f"{EDIT_LEFT_OUT}: {exc}"
    if quantities != [line["quantity"] for line in ordered["lines"]]:
        try:
            return _content_now(payload, ordered, quantities), ""
        except Unusable as exc:
            content_check(ordered)
            return ordered, f"{EDIT_LEFT_OUT}: {exc}"
    try:
        content_check(ordered)
        return ordered, ""
    except Unusable:
        if payload.get("current_total_price") is None:
            raise
        return _content_now(payload, ordered, quantities), ""


def _quantities_now(payload: dict[str, Any], ordered: dict[str, Any]) -> list[int]:
    """Each line's quantity now, with what refunds that moved money took of it added back."""
    refunded = _refunded_by_line(payload, ordered["currency"])
    quantities = []
    for item, line in zip(objects(payload.get("line_items"), "line_items"), ordered["lines"], strict=True):
        now = item.get("current_quantity")
        if now is None:
            quantities.append(line["quantity"])
            continue
        taken_back = refunded.get(str(item.get("id")), 0)
        quantities.append(min(line["quantity"], count(now, "line_items[].current_quantity") + taken_back))
    return quantities


def _money_back(refund: dict[str, Any], currency: str) -> int:
    """What a refund gives back: its refund transactions done, or pending at the payment provider
    (its lines are restocked at once, its money follows: a return, never an edit's removal)."""
    return sum(
        minor(transaction, "amount", currency)
        for transaction in objects(refund.get("transactions"), "refunds[].transactions")
        if transaction.get("kind") == "refund" and transaction.get("status") in MONEY_BACK_STATUSES
    )


def _refunded_by_line(payload: dict[str, Any], currency: str) -> dict[str, int]:
    """What the refunds that move money took of each line item, by Shopify's line item id."""
    refunded: dict[str, int] = {}
    for refund in objects(payload.get("refunds"), "refunds"):
        if _money_back(refund, currency) <= 0:
            continue
        for item in objects(refund.get("refund_line_items"), "refunds[].refund_line_items"):
            line_id = str(item.get("line_item_id"))
            quantity = count(item.get("quantity") or 0, "refunds[].refund_line_items[].quantity")
            refunded[line_id] = refunded.get(line_id, 0) + quantity
    return refunded


def _content_now(payload: dict[str, Any], ordered: dict[str, Any], quantities: list[int]) -> dict[str, Any]:
    """The lines at their quantities now, the total Shopify computed for them (its current total
    plus what refunds took off it), and what is left between them as the discounts."""
    currency = ordered["currency"]
    lines = [
        {**line, "quantity": quantity, "total": quantity * line["unit_price"]}
        for line, quantity in zip(ordered["lines"], quantities, strict=True)
        if quantity > 0
    ]
    if not lines:
        raise Unusable("every line was removed (current_quantity 0): nothing is left to change it to.")
    money_back = sum(_money_back(refund, currency) for refund in objects(payload.get("refunds"), "refunds"))
    total = minor(payload, "current_total_price", currency) + money_back
    shipping = ordered["shipping"]["price"] if ordered.get("shipping") else 0
    items = sum(line["total"] for line in lines)
    if items + shipping < total:
        raise Unusable(
            f"its lines ({items}) and shipping ({shipping}) come to less than its current total with "
            f"the refunds ({total})."
        )
    now = {key: value for key, value in ordered.items() if key not in ("discounts", "tax_total")}
    now |= {"lines": lines, "total": total}
    if items + shipping > total:
        code = next((d["code"] for d in ordered.get("discounts", []) if d.get("code")), None)
        now["discounts"] = [{"amount": items + shipping - total, **({"code": code} if code else {})}]
    if not money_back and payload.get("current_total_tax") is not None:
        # Refunds take their taxes off the current figure too, by an amount Shopify does not
        # give: then the VAT is worked out from the lines' rates instead.
        now["tax_total"] = minor(payload, "current_total_tax", currency)
    content_check(now)
    return now
