"""Shopify's webhooks: the signature, the topics, and its payloads in our words
(intake/shapes.py).

The payloads are Shopify's REST resources as its webhooks send them: the Order for the
`orders/*` topics (with its `fulfillments` and `refunds`), a Fulfillment for
`fulfillments/create`, a FulfillmentEvent (a carrier's news of a parcel) for
`fulfillment_events/create`, a Refund for `refunds/create`. Amounts are decimal strings; where an
`*_set` gives them in the currency the customer paid in (`presentment_money`), that is the one
used, since it is what the customer saw. Every field read is one Shopify documents on the
resource; a payload without one we need is Unusable with the field's name, never guessed."""

from typing import Any

from intake.hmac_signature import HmacSigning

ORDER_TOPICS = frozenset({"orders/create", "orders/updated", "orders/paid", "orders/cancelled"})
FULFILLMENT_TOPIC = "fulfillments/create"
REFUND_TOPIC = "refunds/create"
FULFILLMENT_EVENT_TOPIC = "fulfillment_events/create"
# Shopify requires every app to answer these; they are stored for a person to act on.
PRIVACY_TOPICS = frozenset({"customers/data_request", "customers/redact", "shop/redact"})
TOPICS = ORDER_TOPICS | {FULFILLMENT_TOPIC, REFUND_TOPIC, FULFILLMENT_EVENT_TOPIC}
# An order edit's own topic names the lines it added and removed by id, without their prices:
# the `orders/updated` that Shopify sends with it carries the order as edited, and applies it.
UNUSED_TOPIC_REASONS = {
    "orders/edited": "An order edit: the order's orders/updated delivery carries its new lines and "
    "applies the change (this topic names the lines without their prices).",
}
# Keyed with the app's client secret as it is.
SIGNING = HmacSigning(header="X-Shopify-Hmac-Sha256")


def platform_order_id_of(topic: str, payload: dict[str, Any]) -> str:
    """The order a delivery is about, by Shopify's id: the order's own for an order topic."""
    key = "id" if topic in ORDER_TOPICS else "order_id"
    value = payload.get(key)
    return str(value) if value is not None else ""
