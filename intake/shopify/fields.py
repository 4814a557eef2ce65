"""Reading Shopify's fields: amounts from their `*_set` in the money the customer paid in, times,
and the one way a line is named in an order, its parcels and its refunds."""

from datetime import datetime
from typing import Any

from intake.payload_fields import iso_time, mapping, required, text, to_minor
from intake.shapes import Unusable
from orders.content import SHORT_TEXT


def minor(obj: dict[str, Any], key: str, currency: str) -> int:
    """An amount in minor units: from `<key>_set.presentment_money` when Shopify gives it."""
    money_set = mapping(obj.get(f"{key}_set"), f"{key}_set")
    if money_set:
        value = mapping(money_set.get("presentment_money"), f"{key}_set.presentment_money").get("amount")
    else:
        value = obj.get(key)
    if value is None:
        raise Unusable(f"The payload has no {key}.")
    return to_minor(value, key, currency)


def time(obj: dict[str, Any], key: str) -> datetime:
    return iso_time(required(obj, key), key)


def sku(item: dict[str, Any]) -> str:
    """The line's SKU; a product without one is named by its line item id, the same in the
    order, its fulfillments and its refunds."""
    sku = item.get("sku")
    if sku:
        return text(sku, SHORT_TEXT, "line_items[].sku")
    return text(f"item-{required(item, 'id')}", SHORT_TEXT, "line_items[].id")
