"""Fixtures the intake's tests share: a Saleor instance's key endpoint, and Tea House's Shopify,
WooCommerce and Saleor shops that take signed deliveries through the real webhook view."""

import uuid
from collections.abc import Callable, Iterator

import pytest

from intake.models import PlatformDelivery
from intake.saleor import signature
from shops.models import Shop
from tests import saleor_payloads as saleor
from tests import woocommerce_payloads as woo
from tests.connected_shop import tea_house_create
from tests.saleor_keys import SaleorKeys


@pytest.fixture
def keys() -> Iterator[SaleorKeys]:
    """A stand-in Saleor publishing its key; the intake's cache of keys forgotten around it."""
    signature.keys_forget()
    stand_in = SaleorKeys()
    yield stand_in
    stand_in.close()
    signature.keys_forget()


@pytest.fixture
def saleor_deliver(client, keys) -> Callable[[str, dict], str]:
    """`post(event_type, payload)`: the delivery signed by `keys`, posted to the shop
    tea-house-saleor (created here); the intake's answer ("used", "waiting", …)."""
    Shop.objects.create(
        slug="tea-house-saleor", name="Tea House", platform=Shop.Platform.SALEOR, domain=keys.api_url
    )

    def post(event_type: str, payload: dict) -> str:
        body = saleor.body_of(payload)
        headers = saleor.delivery_headers(
            event_type=event_type, signature=keys.sign(body), api_url=keys.api_url
        )
        response = client.post(
            "/shops/tea-house-saleor/webhook", body, content_type="application/json", **headers
        )
        assert response.status_code == 200
        return response.json()["detail"]

    return post


@pytest.fixture
def tea_house() -> Shop:
    return tea_house_create()


@pytest.fixture
def woo_deliver(client):
    """`post(topic, payload)`: signed, to the WooCommerce shop tea-house-woo (created here)."""
    Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )

    def post(topic: str, payload: dict) -> PlatformDelivery:
        body = woo.body_of(payload)
        headers = woo.signed_headers(body, topic=topic, delivery_id=uuid.uuid4().hex)
        response = client.post(
            "/shops/tea-house-woo/webhook", body, content_type="application/json", **headers
        )
        assert response.status_code == 200, response.content
        return PlatformDelivery.objects.latest("received_at")

    return post
