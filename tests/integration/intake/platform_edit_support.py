"""What the attacks on an order changed on its platform share: Tea House's Shopify deliveries
through the real webhook view, Shopify's edited figures, and an order's emails and documents
(the shops themselves are fixtures of conftest.py)."""

import copy
import uuid
from typing import Any

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Invoice, Order
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_deliver

MUG_LINE = 6101234999


def deliver(topic: str, payload: dict[str, Any]) -> PlatformDelivery:
    """The Shopify delivery posted to Tea House (never a duplicate: each body is new)."""
    assert tea_house_deliver(topic, payload, uuid.uuid4().hex) != "duplicate"
    return PlatformDelivery.objects.latest("received_at")


def money(payload: dict[str, Any], key: str, amount: str) -> None:
    """A Shopify amount, in its field and its `_set`."""
    payload[key] = amount
    payload[f"{key}_set"] = shopify.money_set(amount)


def with_mug(order: dict[str, Any]) -> dict[str, Any]:
    """The order after an edit that added a mug (9.90) as a line of its own: Shopify's ordered
    figures take it in (59.70 + 9.90 = 69.60)."""
    mug = copy.deepcopy(order["line_items"][1])
    mug |= {"id": MUG_LINE, "title": "Mug", "name": "Mug", "sku": "MUG-2", "price": "9.90"}
    mug |= {"price_set": shopify.money_set("9.90"), "quantity": 1, "current_quantity": 1}
    order["line_items"].append(mug)
    money(order, "total_line_items_price", "69.70")
    money(order, "subtotal_price", "64.70")
    money(order, "total_price", "69.60")
    money(order, "current_total_price", "69.60")
    return order


def one_tea_less(updated_at: str = "2026-12-01T11:00:00+01:00") -> dict[str, Any]:
    """The order after an edit that removed one of its two tea bags (59.70 - 12.90)."""
    edited = shopify.order(updated_at=updated_at)
    edited["line_items"][0]["current_quantity"] = 1
    money(edited, "current_total_price", "46.80")
    money(edited, "current_total_tax", "7.47")
    return edited


def tea_house_order() -> Order:
    return Order.objects.get(shop__slug="tea-house", platform_order_id=str(shopify.ORDER_ID))


def kinds(order: Order) -> list[str]:
    return sorted(Notification.objects.filter(order=order).values_list("kind", flat=True))


def documents(order: Order) -> list[tuple[str, int]]:
    return list(Invoice.objects.filter(order=order).order_by("number").values_list("kind", "total_minor"))
