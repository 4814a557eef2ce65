"""Reading Shopify's fields: amounts in minor units, times, texts cut to what an email line
carries, and the one way a line is named in an order, its parcels and its refunds."""

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from intake.shapes import Unusable
from orders.content import SHORT_TEXT
from orders.currencies import currency_decimals


def minor(obj: dict[str, Any], key: str, currency: str) -> int:
    """An amount in minor units: from `<key>_set.presentment_money` when Shopify gives it."""
    money_set = obj.get(f"{key}_set")
    value = money_set["presentment_money"]["amount"] if money_set else obj.get(key)
    if value is None:
        raise Unusable(f"The payload has no {key}.")
    amount = decimal(value, key)
    minor = amount.scaleb(currency_decimals(currency))
    if minor != minor.to_integral_value():
        raise Unusable(f"{key} {value} has more decimals than {currency} has.")
    return int(minor)


def decimal(value: Any, field: str) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation as exc:
        raise Unusable(f"{field} {value!r} is not a number.") from exc


def time(obj: dict[str, Any], key: str) -> datetime:
    try:
        return datetime.fromisoformat(str(required(obj, key)))
    except ValueError as exc:
        raise Unusable(f"{key} {obj[key]!r} is not an ISO 8601 time.") from exc


def required(obj: dict[str, Any], key: str) -> Any:
    if obj.get(key) is None:
        raise Unusable(f"The payload has no {key}.")
    return obj[key]


def text(value: str, limit: int) -> str:
    """Shopify allows longer texts than an email line should carry: cut, with an ellipsis."""
    text = str(value).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def sku(item: dict[str, Any]) -> str:
    """The line's SKU; a product without one is named by its line item id, the same in the
    order, its fulfillments and its refunds."""
    sku = item.get("sku")
    if sku:
        return text(str(sku), SHORT_TEXT)
    return f"item-{required(item, 'id')}"
