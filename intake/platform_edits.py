"""A platform's order whose lines changed after it was placed (a Shopify order edit, a
WooCommerce order saved with other lines, a Saleor ORDER_UPDATED): applied as an edit through
the orders' own service (orders/edits.py), so the change is a new OrderVersion with its "your
order was changed" email, and a credit note and a new invoice when one was issued.

What counts is what the customer pays for: how many of each SKU at which price, shipping's
price, the discounts' sum and the total. The rest of what a platform sends again with each
delivery (the customer's name, the addresses, the payment method's words, the lines' names) is
the order's as it was placed, as before: a change of those alone, or of the taxes alone, is no
edit to tell of. An edit the order cannot take (it is cancelled, erased, shipped in full, or
would go below what shipped or was refunded), or one after PLATFORM_EDITS_PER_ORDER_MAX edits
of the order, is left out with the reason: the platform's fact stands, and the delivery's other
news (a payment, a parcel) is applied all the same. Deliveries older than the newest applied
never get here (intake/apply.py), nor one with its time whose lines differ (intake/same_time.py),
so an edit never goes back to an older version.

An edit in the delivery that cancels the order is stored untold: the order holds what the shop
cancelled (the cancellation's refund of an edited total, of an added line, fits what was paid)
but the customer hears of the cancellation alone, with no "changed" email moments before it;
the edit's credit note and new invoice ride on the cancellation's email, so the documents bill
what the order holds even when the cancellation refunds less (or nothing yet)."""

from collections import Counter
from typing import Any

from django.conf import settings
from django.db import transaction

from intake.shapes import PlatformOrder
from orders.content import ContentMismatch
from orders.currencies import MoneyRefused
from orders.edits import OrderEditRefused, order_edit_apply
from orders.models import Order, OrderEdit
from orders.selectors import order_content

# The parts of an order's content a platform's edit changes; None for one the platform no longer
# sends (the discounts removed) takes it out. A change of the taxes alone is no edit (_seen).
EDITED_PARTS = ("lines", "shipping", "discounts", "tax_total", "total")
LEFT_OUT = "the platform's change of the order's lines was not applied"


def platform_edit_apply(order: Order, snapshot: PlatformOrder) -> list[str]:
    """The order brought to what the platform says it holds now (nothing to do when its content
    is not known, or its edit could not be read); what was done, in words. Before the
    delivery's payment and cancellation, which may refund the edited total."""
    change = _content_change(order, snapshot)
    if change is None:
        return []
    current, content_now = change
    if content_now["currency"] != current["currency"]:
        # Its amounts are another currency's: taken as the order's, they would bill other sums.
        return [
            f"{LEFT_OUT}: its amounts are in {content_now['currency']}, the order's in {current['currency']}."
        ]
    used_up = "" if snapshot.cancelled else _edits_used_up(order)  # an untold edit sends nothing
    if used_up:
        return [f"{LEFT_OUT}: {used_up}"]
    parts = {key: content_now.get(key) for key in EDITED_PARTS}
    try:
        with transaction.atomic():
            editing = order_edit_apply(order, parts, told=not snapshot.cancelled)
    except (OrderEditRefused, ContentMismatch, MoneyRefused) as exc:
        return [f"{LEFT_OUT}: {exc}"]
    if editing.version is None:
        return []
    if editing.edit is None:
        return [
            f"order edited (version {editing.version}) with its cancellation: not told, its documents "
            "carried by the cancellation's email"
        ]
    return [f"order edited (version {editing.version})"]


def platform_edit_differs(order: Order, snapshot: PlatformOrder) -> bool:
    """The platform's order holds other lines, shipping, discounts or total than ours: an edit to
    apply, or to leave out with its reason."""
    return _content_change(order, snapshot) is not None


def _content_change(order: Order, snapshot: PlatformOrder) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The order's content and the platform's, when they differ in what the customer pays for;
    None when there is nothing to change: the platform's is not known or its edit not read, the
    order is cancelled or erased, or the two are the same."""
    content_now = None if snapshot.edit_left_out else snapshot.content
    if content_now is None or order.status == Order.Status.CANCELLED or order.erased_at is not None:
        return None
    current = order_content(order)
    if current is None:
        return None
    if content_now["currency"] == current["currency"] and _seen(current) == _seen(content_now):
        # Not a line's tax rate (the taxes alone), its name, nor how a release before stored it
        # (a key added since).
        return None
    return current, content_now


def _edits_used_up(order: Order) -> str:
    """Why the order takes no more edits from its platform, "" while it may: each is an email
    to its customer and two documents of the shop's invoice series, so a platform's app that
    keeps saving the order with other lines must not make them without end."""
    made, cap = OrderEdit.objects.filter(order=order).count(), settings.PLATFORM_EDITS_PER_ORDER_MAX
    if made < cap:
        return ""
    # The setting's name first: the admin's list of deliveries shows a reason's first 120 characters.
    return (
        f"PLATFORM_EDITS_PER_ORDER_MAX ({cap}) reached: its platform changed the order {made} times "
        "already. Its customer is not told of this change nor billed anew; ask the shop why its "
        "platform keeps changing the order."
    )


def _seen(content: dict[str, Any]) -> tuple:
    """What the customer pays for: how many of each SKU at each price, shipping's price, the
    discounts' sum and the total, however the lines are split or ordered. A line's name, a
    shipping method's or a discount code's words are not compared: a release that reads a
    platform's names differently must not make every order's next delivery an edit."""
    quantities: Counter[tuple[str, int]] = Counter()
    for line in content.get("lines") or []:
        quantities[(line["sku"], line["unit_price"])] += line["quantity"]
    shipping = (content.get("shipping") or {}).get("price", 0)
    discounts = sum(discount["amount"] for discount in content.get("discounts") or [])
    return sorted(quantities.items()), shipping, discounts, content.get("total")
