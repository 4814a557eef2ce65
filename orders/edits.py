"""What an order holds, changed after it was placed: lines added, removed or changed, and what
follows (shipping, discounts, taxes, the total). The change is a new OrderVersion (the versions
before stay as they were) and an OrderEdit saying what changed for the customer, with its
`order.edited` event: the customer's "your order was changed" email. A change that leaves the
content as it is stores nothing and sends nothing; one its caller cancels next, in the same
transaction, is stored untold: its version and documents, without the OrderEdit or its email.

What an edit may not do, refused with the reason (OrderEditRefused) before anything is stored:
change an order placed with the short body (it has no lines), an erased one, a cancelled one,
or one whose every line has shipped; take a line below what has shipped or was refunded of it;
or bring the total below what was refunded. What was paid stays what the payment took
(Order.paid_minor): an edit changes the order, not the money that came in. The totals must add
up, as for a new order."""

from collections import Counter
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Sum

from apiauth.models import ApiToken
from messaging.outbox import event_record
from orders.changes import OrderChangeConflict, order_lock, order_paid_minor
from orders.content import (
    CONTENT_ERASED,
    ShopOrder,
    content_erased_message,
    content_totals_check,
    lines_ordered,
)
from orders.currencies import money_check
from orders.events import ORDER_EDITED
from orders.invoicing.reissue import invoice_reissue_for_edit
from orders.models import Order, OrderEdit, OrderVersion, Refund, Shipment
from orders.selectors import order_content

# What a client may change of a shop's order: everything but its number, its customer's address,
# its currency and its language, which name the order and its emails.
EDITABLE = (
    "customer_name",
    "lines",
    "shipping_address",
    "billing_address",
    "shipping",
    "discounts",
    "tax_total",
    "payment_method",
    "total",
)


class OrderEditRefused(Exception):
    """The edit does not fit the order (409): `code` says why in a word the client can branch on."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class OrderEditing:
    order: Order
    edit: OrderEdit | None  # None: nothing was stored (the content was already so), or it was untold
    version: int | None = None  # the content version stored; None when none was


def lines_changed(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Each SKU a customer would see changed: its quantity (0 when absent on one side), or the
    price of one of its lines (a SKU may come in several lines, each at its own price); in the
    order of the new content, then the SKUs removed."""
    old, new = _lines_by_sku(before), _lines_by_sku(after)
    changed = [
        _change(sku, lines, old.get(sku), lines) for sku, lines in new.items() if old.get(sku) != lines
    ]
    changed += [_change(sku, lines, lines, None) for sku, lines in old.items() if sku not in new]
    return changed


def _lines_by_sku(content: dict[str, Any]) -> dict[str, list[tuple[int, int, str]]]:
    """Each SKU as (quantity, unit price, name) per price it is sold at, sorted: what a customer
    pays for it, whatever order its lines come in and however they are split."""
    at_price: dict[str, Counter[tuple[int, str]]] = {}
    for line in content["lines"]:
        at_price.setdefault(line["sku"], Counter())[(line["unit_price"], line["name"])] += line["quantity"]
    return {
        sku: sorted((quantity, price, name) for (price, name), quantity in prices.items())
        for sku, prices in at_price.items()
    }


def _change(
    sku: str, named: list[tuple[int, int, str]], was: list | None, now: list | None
) -> dict[str, Any]:
    """The SKU's quantities before and after, and a price that changed (the first of the new
    prices the lines did not have, and the first old one they lost; else the first of each)."""
    old_prices, new_prices = [p for _, p, _ in was or []], [p for _, p, _ in now or []]
    return {
        "sku": sku,
        "name": named[0][2],
        "before": sum(q for q, _, _ in was or []),
        "after": sum(q for q, _, _ in now or []),
        "unit_price_before": next(
            (p for p in old_prices if p not in new_prices), old_prices[0] if was else None
        ),
        "unit_price_after": next(
            (p for p in new_prices if p not in old_prices), new_prices[0] if now else None
        ),
    }


@transaction.atomic(durable=True)
def order_edit(
    *, order_id: UUID, api_token: ApiToken | None, parts: dict[str, Any], expected_version: int | None = None
) -> OrderEditing:
    """`parts`: the EDITABLE fields that change, each whole (the lines all of them); those
    absent stay. Under the order's row lock, as every change of it. OrderNotFound for an order
    the token may not see; OrderChangeConflict when `expected_version` is not the order's;
    OrderEditRefused, ContentMismatch or MoneyRefused when the edit does not fit."""
    order = order_lock(order_id=order_id, api_token=api_token)
    if expected_version is not None and expected_version != order.version:
        raise OrderChangeConflict(
            f"The order is at version {order.version}, not {expected_version}: it changed meanwhile. "
            "Read it again before deciding."
        )
    return order_edit_apply(order, parts)


def order_edit_apply(order: Order, parts: dict[str, Any], *, told: bool = True) -> OrderEditing:
    """`order_edit` for an order the caller holds locked, in the caller's transaction; a part
    given as None is taken out of the content (the discounts a platform's edit removed).

    `told=False`: the new version is stored, and the order's amount with it, but no OrderEdit
    and no email: an edit of an order its caller cancels next, in the same transaction (a
    platform's delivery that says both). Its customer hears of the cancellation only, yet the
    order holds what was cancelled: a refund of the edited lines or total fits. Its documents
    are issued all the same, carried by the cancellation's email: a cancellation that refunds
    less than the edit added leaves the order billing what it holds."""
    name = str(order.number or order.id)
    current = _content_to_edit(order, name)
    content = {**current, **{key: value for key, value in parts.items() if key in EDITABLE}}
    for key in [key for key, value in parts.items() if value is None]:
        content.pop(key, None)  # a part the caller says the order no longer has (a platform's edit)
    content_totals_check(content)  # ContentMismatch: the API answers 400 naming the field
    money_check(amount=ShopOrder(content).amount, currency=content["currency"])
    if _as_seen(content) == _as_seen(current):
        return OrderEditing(order=order, edit=None)
    _shipped_and_refunded_check(order, name, current, content)
    number = (order.content_version or 1) + 1
    OrderVersion.objects.create(order=order, number=number, content=content, total_minor=content["total"])
    order.content_version = number
    order.amount = ShopOrder(content).amount
    order.customer_name = content["customer_name"]
    order.version += 1
    order.save(update_fields=["content_version", "amount", "customer_name", "version", "updated_at"])
    edit = None
    if told:
        edit = OrderEdit.objects.create(
            order=order,
            from_version=number - 1,
            to_version=number,
            lines=lines_changed(current, content),
            total_before_minor=current["total"],
            total_after_minor=content["total"],
        )
        event_record(event_type=ORDER_EDITED, aggregate_id=edit.id)
    # Untold too: the documents must bill what the order holds, whatever the cancellation refunds.
    invoice_reissue_for_edit(
        order,
        content=content,
        version_number=number,
        edit_id=edit.id if edit else None,
        paid_minor=order_paid_minor(order),
    )
    return OrderEditing(order=order, edit=edit, version=number)


def _content_to_edit(order: Order, name: str) -> dict[str, Any]:
    """The order's content now; OrderEditRefused for an order that has none to change."""
    current = order_content(order)
    if current is None:
        raise OrderEditRefused(
            "order_has_no_lines", f"Order {name} was placed with the short body: it has no lines to change."
        )
    if order.erased_at is not None:
        raise OrderEditRefused(CONTENT_ERASED, content_erased_message(name))
    if order.status == Order.Status.CANCELLED:
        raise OrderEditRefused("order_cancelled", f"Order {name} is cancelled: nothing of it changes.")
    return current


def _as_seen(content: dict[str, Any]) -> dict[str, Any]:
    """The content as it reads, whatever order its lines and discounts come in."""
    return content | {
        key: sorted(content.get(key) or [], key=lambda item: sorted(item.items()))
        for key in ("lines", "discounts")
    }


def _shipped_and_refunded_check(
    order: Order, name: str, before: dict[str, Any], after: dict[str, Any]
) -> None:
    """Raises OrderEditRefused when every line has shipped, when a line would fall below what
    has shipped or was refunded of it, or the total below what was refunded."""
    shipped: Counter[str] = Counter()
    for lines in Shipment.objects.filter(order=order).values_list("lines", flat=True):
        for line in lines:
            shipped[line["sku"]] += line["quantity"]
    ordered, _ = lines_ordered(before)
    if shipped and all(shipped[sku] >= quantity for sku, quantity in ordered.items()):
        raise OrderEditRefused(
            "order_shipped", f"Every line of order {name} has shipped: it can no longer change."
        )
    wanted, _ = lines_ordered(after)
    for sku, quantity in shipped.items():
        if wanted[sku] < quantity:
            raise OrderEditRefused(
                "edit_below_shipped",
                f"{sku}: {quantity} have shipped already, so the order cannot hold fewer ({wanted[sku]}).",
            )
    refunded_lines: Counter[str] = Counter()
    for lines in Refund.objects.filter(order=order).values_list("lines", flat=True):
        for line in lines:
            refunded_lines[line["sku"]] += line["quantity"]
    for sku, quantity in refunded_lines.items():
        if wanted[sku] < quantity:
            raise OrderEditRefused(
                "edit_below_refunded",
                f"{sku}: {quantity} were refunded (returned) already, so the order cannot hold fewer "
                f"({wanted[sku]}).",
            )
    refunded = Refund.objects.filter(order=order).aggregate(sum=Sum("amount_minor"))["sum"] or 0
    if after["total"] < refunded:
        raise OrderEditRefused(
            "edit_below_refunded",
            f"{refunded} (minor units) of order {name} was refunded already: its total cannot be less "
            f"({after['total']}).",
        )
