"""Shopify's mandatory privacy webhooks, taken only when the body is that request's body.

Shopify signs the body alone: the topic (X-Shopify-Topic), the event id and the shop's domain
are headers anyone can set on a captured delivery. An order's bytes re-posted as `shop/redact`
would otherwise erase every customer of the shop. So each request's body must have the fields
Shopify documents for that topic (shopify.dev, "privacy law compliance"), `shop/redact` exactly
those two, each of the type Shopify sends, and name this shop's domain. A field of another type
would otherwise be stored as a request to carry out, and fail the hourly job that carries it
out (an order id that is a number, not a list; a NUL the database refuses). This check reads the
body alone; whether a shop/redact is carried out now is read from the shop's deliveries, beside
it (intake/shopify/shop_redact.py)."""

import re
from collections.abc import Callable
from typing import Any

# The fields each request's body holds; a body without one of them is not that request.
_FIELDS = {
    "customers/data_request": frozenset(
        {"shop_id", "shop_domain", "customer", "orders_requested", "data_request"}
    ),
    "customers/redact": frozenset({"shop_id", "shop_domain", "customer", "orders_to_redact"}),
    "shop/redact": frozenset({"shop_id", "shop_domain"}),
}
# A shop's erasure says nothing else: any other field means it is some other body.
_EXACTLY = frozenset({"shop/redact"})
_DIGITS = re.compile(r"[0-9]{1,64}")


def _an_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _order_ids(value: Any) -> bool:
    """Shopify's order ids: numbers, or their digits as a string."""
    return isinstance(value, list) and all(
        _an_integer(order_id) or (isinstance(order_id, str) and _DIGITS.fullmatch(order_id))
        for order_id in value
    )


def _a_customer(value: Any) -> bool:
    """A customer may have a phone and no email: `email` absent or null, else a string."""
    return isinstance(value, dict) and isinstance(value.get("email") or "", str)


# Each field's type as Shopify sends it (what the hourly job reads of it relies on it).
_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "shop_id": ("a number", _an_integer),
    "shop_domain": ("a string", lambda value: isinstance(value, str)),
    "customer": ("an object whose email is a string or null", _a_customer),
    "orders_to_redact": ("a list of order ids (numbers)", _order_ids),
    "orders_requested": ("a list of order ids (numbers)", _order_ids),
    "data_request": ("an object", lambda value: isinstance(value, dict)),
}


def privacy_request_refusal(topic: str, payload: dict[str, Any], shop_domain: str) -> str | None:
    """Why the body cannot be the `topic` request of the shop at `shop_domain`; None when it is."""
    fields = _FIELDS[topic]
    has = frozenset(payload)
    if not fields <= has or (topic in _EXACTLY and has != fields):
        return (
            f"The body is not a {topic} request: it has the fields {', '.join(sorted(has)) or 'none'}, "
            f"and a {topic} request has {', '.join(sorted(fields))}. Nothing is done."
        )
    for field in sorted(fields):
        kind, is_of_its_type = _TYPES[field]
        if not is_of_its_type(payload[field]):
            return f"The {topic} request's `{field}` is not {kind}, as Shopify sends it: nothing is done."
    named = payload["shop_domain"]
    if named.lower() != shop_domain.lower():
        return f"The request names the shop {named or 'none'}, not {shop_domain}: nothing is done."
    return None
