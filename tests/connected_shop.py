"""The tests' connected Shopify shop, "Tea House", and its deliveries posted as Shopify posts
them (signed, through the real webhook view): one place for what many intake and privacy tests
set up alike."""

from typing import Any

from django.test import Client

from intake.models import PlatformDelivery
from shops.models import Shop
from tests import shopify_payloads as shopify


def tea_house_create(**fields: Any) -> Shop:
    """The shop, connected to Shopify with the payloads' domain and secret; `fields` add to it
    (its sender, its legal data)."""
    return Shop.objects.create(
        slug="tea-house",
        name="Tea House",
        platform="shopify",
        domain=shopify.SHOP_DOMAIN,
        webhook_secret=shopify.CLIENT_SECRET,
        **fields,
    )


def tea_house_deliver(topic: str, payload: dict[str, Any], event_id: str) -> str:
    """Post one delivery to the shop's webhook; the answer's detail (used, duplicate, …)."""
    body = shopify.body_of(payload)
    headers: dict = shopify.signed_headers(body, topic=topic, event_id=event_id)
    response = Client().post("/shops/tea-house/webhook", body, content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    return str(response.json()["detail"])


def tea_house_delivery(event_id: str) -> PlatformDelivery:
    """The delivery stored by the post under `event_id`: its key is its body's digest, and the
    event's id is kept in its webhook_id, for a person tracing it."""
    return PlatformDelivery.objects.get(webhook_id__startswith=f"event {event_id},")
