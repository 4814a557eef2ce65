"""Shopify's webhooks: the signature, the topics, and its payloads in our words
(intake/shapes.py).

The payloads are Shopify's REST resources as its webhooks send them: the Order for the
`orders/*` topics (with its `fulfillments` and `refunds`), a Fulfillment for
`fulfillments/create`, a Refund for `refunds/create`. Amounts are decimal strings; where an
`*_set` gives them in the currency the customer paid in (`presentment_money`), that is the one
used, since it is what the customer saw. Every field read is one Shopify documents on the
resource; a payload without one we need is Unusable with the field's name, never guessed."""

import base64
import hashlib
import hmac
from typing import Any

ORDER_TOPICS = frozenset({"orders/create", "orders/updated", "orders/paid", "orders/cancelled"})
FULFILLMENT_TOPIC = "fulfillments/create"
REFUND_TOPIC = "refunds/create"
# Shopify requires every app to answer these; they are stored for a person to act on.
PRIVACY_TOPICS = frozenset({"customers/data_request", "customers/redact", "shop/redact"})
TOPICS = ORDER_TOPICS | {FULFILLMENT_TOPIC, REFUND_TOPIC}


def signature_of(body: bytes, secret: str) -> str:
    """X-Shopify-Hmac-Sha256: base64 of the HMAC-SHA256 of the raw body, keyed with the app's
    client secret."""
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


def signature_valid(*, body: bytes, secret: str, signature: str) -> bool:
    """Compared in constant time."""
    if not secret or not signature:
        return False
    return hmac.compare_digest(signature_of(body, secret), signature.strip())


def platform_order_id_of(topic: str, payload: dict[str, Any]) -> str:
    """The order a delivery is about, by Shopify's id: the order's own for an order topic."""
    key = "id" if topic in ORDER_TOPICS else "order_id"
    value = payload.get(key)
    return str(value) if value is not None else ""
