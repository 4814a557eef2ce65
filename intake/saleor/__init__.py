"""Saleor's webhooks: the topics and the order a delivery is about.

What Saleor does, read in its source (saleor/webhook/transport/, saleor/core/jwt_manager.py):
an asynchronous webhook posts the payload with the headers Saleor-Event (the event in lower
case, "order_created"), Saleor-Domain, Saleor-Api-Url and Saleor-Signature; with no secret key
on the webhook, the signature is a JWS of the body (RS256, detached, unencoded payload) signed
with the instance's private key, whose public half is at /.well-known/jwks.json
(intake/saleor/signature.py). A failed delivery is retried five times and can be resent from the
dashboard later, each time with the same stored payload bytes; no header names the delivery, so
the body's digest is its key (intake/delivery_keys.py). The payload is what the webhook's
subscription query selects: this service's query (intake/saleor/subscription.py) selects the
whole order and the event's `issuedAt`, so two events never share a body and every delivery
brings the order as it is."""

from typing import Any

# Each carries the whole order: a parcel that left, a refund, a cancellation are read from it.
ORDER_TOPICS = frozenset(
    {
        "order_created",
        "order_fully_paid",
        "order_cancelled",
        "order_fulfilled",
        "order_refunded",
        # Lines added, removed or changed (intake/platform_edits.py), among other changes.
        "order_updated",
        # A parcel of an order not yet fulfilled in full: each parcel its email when it leaves.
        "fulfillment_created",
        # A parcel's news, which a shop writes in its fulfillment's metadata (parcel_news.py).
        "fulfillment_metadata_updated",
    }
)


def platform_order_id_of(topic: str, payload: dict[str, Any]) -> str:
    """The order's global id (Saleor's "Order:<uuid>" in base64)."""
    order = payload.get("order")
    value = order.get("id") if isinstance(order, dict) else None
    return str(value) if value is not None else ""
