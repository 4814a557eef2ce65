"""Shopify's mandatory privacy webhooks, taken only when the body is that request's body.

Shopify signs the body alone: the topic (X-Shopify-Topic), the event id and the shop's domain
are headers anyone can set on a captured delivery. An order's bytes re-posted as `shop/redact`
would otherwise erase every customer of the shop. So each request's body must have the fields
Shopify documents for that topic (shopify.dev, "privacy law compliance"), `shop/redact` exactly
those two, and name this shop's domain."""

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


def privacy_request_refusal(topic: str, payload: dict[str, Any], shop_domain: str) -> str | None:
    """Why the body cannot be the `topic` request of the shop at `shop_domain`; None when it is."""
    fields = _FIELDS[topic]
    has = frozenset(payload)
    if (
        not fields <= has
        or (topic in _EXACTLY and has != fields)
        or ("customer" in fields and not isinstance(payload.get("customer"), dict))
    ):
        return (
            f"The body is not a {topic} request: it has the fields {', '.join(sorted(has)) or 'none'}, "
            f"and a {topic} request has {', '.join(sorted(fields))}. Nothing is done."
        )
    named = str(payload.get("shop_domain") or "")
    if named.lower() != shop_domain.lower():
        return f"The request names the shop {named or 'none'}, not {shop_domain}: nothing is done."
    return None
