"""Fixtures the intake's tests share: a Saleor instance's key endpoint, and a Saleor shop that
takes signed deliveries through the real webhook view."""

from collections.abc import Callable, Iterator

import pytest

from intake.saleor import signature
from shops.models import Shop
from tests import saleor_payloads as saleor
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
