"""What names a platform's delivery in its row (PlatformDelivery.event_key), for all three
platforms: what the platform signs, its body, by the body's digest.

Shopify and WooCommerce sign the body alone: the event or delivery id and the topic are headers
anyone can set on a captured delivery, and Saleor sends no id at all. Keyed by what is signed,
the same bytes again, under any id or topic, are a duplicate and store nothing. That is sound
because a delivery's effect is its body's alone: every topic applied carries the whole order (by
its id and modification time), a parcel or a refund (by their ids), or a privacy request (a data
request by its id), so two deliveries with the same bytes do the same. The one exception, a
Shopify shop's second *shop/redact*, is keyed in intake/shopify/shop_redact.py."""

import hashlib


def body_key(body: bytes) -> str:
    return f"sha256:{hashlib.sha256(body).hexdigest()}"
