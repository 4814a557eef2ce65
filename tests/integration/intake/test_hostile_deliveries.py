"""Signed deliveries carrying what a customer typed at the checkout that the database cannot
hold, or fields of another type than the platform documents: each is kept as "could not use"
with a reason naming the field, answered 200, and nothing of it is lost. An answer of 500 would
cost more than the one order: WooCommerce disables a webhook after five failures in a row and
Shopify removes the subscription after its retries, so every later order's emails would be
lost. What the readers do not foresee is stored the same way by the intake's backstop, its
traceback logged."""

import logging
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from intake.models import PlatformDelivery
from intake.receive import delivery_rerun
from orders.models import Order
from shops.models import Shop
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.connected_shop import tea_house_create
from tests.saleor_keys import SaleorKeys

pytestmark = pytest.mark.django_db

# 260 characters, valid by the RFCs and by Django's validator (up to 320), over the 254 an
# order's address column holds.
LONG_ADDRESS = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 63 + ".com"
NUL, SURROGATE = "\u0000", "\ud800"  # json.dumps writes them as the escapes \u0000 and \ud800

Deliver = Callable[[str, str, bytes], Any]


@pytest.fixture
def deliver(keys) -> Deliver:
    """Post a signed body to the platform's shop, as its platform posts it; a 500 comes back as
    a response, as the platform sees it."""
    tea_house_create()
    Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )
    Shop.objects.create(
        slug="tea-house-saleor", name="Tea House", platform=Shop.Platform.SALEOR, domain=keys.api_url
    )

    def post(platform: str, topic: str, body: bytes):
        path, headers = _signed(platform, topic, body, keys)
        client = Client(raise_request_exception=False)
        return client.post(path, body, content_type="application/json", **headers)

    return post


def _signed(platform: str, topic: str, body: bytes, keys: SaleorKeys) -> tuple[str, dict]:
    """The shop's address, and the headers its platform signs the body with."""
    if platform == "shopify":
        return "/shops/tea-house/webhook", shopify.signed_headers(body, topic=topic)
    if platform == "woocommerce":
        headers = woo.signed_headers(body, topic=topic, delivery_id=uuid.uuid4().hex)
        return "/shops/tea-house-woo/webhook", headers
    headers = saleor.delivery_headers(event_type=topic, signature=keys.sign(body), api_url=keys.api_url)
    return "/shops/tea-house-saleor/webhook", headers


def _shopify(**changes: Any) -> tuple[str, str, bytes]:
    return "shopify", "orders/create", shopify.body_of(shopify.order(**changes))


def _woo(**changes: Any) -> tuple[str, str, bytes]:
    return "woocommerce", "order.created", woo.body_of(woo.order(**changes))


def _saleor(**changes: Any) -> tuple[str, str, bytes]:
    body = saleor.body_of(saleor.event("OrderCreated", saleor.order(**changes)))
    return "saleor", "order_created", body


def _shopify_line(**changes: Any) -> list[dict[str, Any]]:
    return [dict(shopify.ORDER["line_items"][0], **changes), *shopify.ORDER["line_items"][1:]]


def _woo_line(**changes: Any) -> list[dict[str, Any]]:
    return [dict(woo.ORDER["line_items"][0], **changes), *woo.ORDER["line_items"][1:]]


def _saleor_line(**changes: Any) -> list[dict[str, Any]]:
    return [dict(saleor.ORDER["lines"][0], **changes), *saleor.ORDER["lines"][1:]]


def _kept_as_could_not_use(response, body: bytes) -> PlatformDelivery:
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use"), response.content
    delivery = PlatformDelivery.objects.get()
    assert delivery.body == body.decode()  # kept as it came, for a re-run after a fix
    assert not Order.objects.exists()
    return delivery


CUSTOMER_TEXT = {
    "Shopify: a 260-character address": (_shopify(email=LONG_ADDRESS), "email has 260 characters"),
    "Shopify: a NUL in the first name": (
        _shopify(customer=shopify.ORDER["customer"] | {"first_name": "Ada" + NUL}),
        "customer.first_name contains U+0000",
    ),
    "Shopify: a lone surrogate in the city": (
        _shopify(shipping_address=shopify.ORDER["shipping_address"] | {"city": "Berlin" + SURROGATE}),
        "shipping_address.city contains U+D800",
    ),
    "Shopify: a lone surrogate in the address's domain": (
        _shopify(email="ada@ex" + SURROGATE + "ample.com"),
        "contains U+D800",
    ),
    "WooCommerce: a 260-character address": (
        _woo(billing=woo.ORDER["billing"] | {"email": LONG_ADDRESS}),
        "billing.email has 260 characters",
    ),
    "WooCommerce: a NUL in the first name": (
        _woo(billing=woo.ORDER["billing"] | {"first_name": "Ada" + NUL}),
        "billing.first_name contains U+0000",
    ),
    "WooCommerce: a lone surrogate in the first name": (
        _woo(billing=woo.ORDER["billing"] | {"first_name": "Ada" + SURROGATE}),
        "billing.first_name contains U+D800",
    ),
    "Saleor: a 260-character address": (_saleor(userEmail=LONG_ADDRESS), "userEmail has 260 characters"),
    "Saleor: a NUL in a product's name": (
        _saleor(lines=_saleor_line(productName="Green tea" + NUL)),
        "lines[].productName contains U+0000",
    ),
    "Saleor: a lone surrogate in the street": (
        _saleor(shippingAddress=saleor.ORDER["shippingAddress"] | {"streetAddress1": "Linden" + SURROGATE}),
        "shippingAddress.streetAddress1 contains U+D800",
    ),
}


@pytest.mark.parametrize(("case", "reason"), CUSTOMER_TEXT.values(), ids=CUSTOMER_TEXT.keys())
def test_customer_text_the_database_cannot_hold_is_kept_as_could_not_use_with_the_field(
    deliver, case, reason
):
    platform, topic, body = case
    # when
    response = deliver(platform, topic, body)
    # then
    delivery = _kept_as_could_not_use(response, body)
    assert reason in delivery.reason


def _shopify_refund(**changes: Any) -> tuple[str, str, bytes]:
    return "shopify", "refunds/create", shopify.body_of(shopify.REFUND | changes)


WRONG_TYPES = {
    "Shopify: total Infinity": (
        _shopify(total_price="Infinity", total_price_set=None),
        "total_price 'Infinity'",
    ),
    "Shopify: quantity 1.5": (
        _shopify(line_items=_shopify_line(quantity="1.5")),
        "line_items[].quantity '1.5'",
    ),
    "Shopify: line_items an object": (_shopify(line_items={"a": 1}), "line_items is an object, not a list"),
    "Shopify: shipping_address text": (
        _shopify(shipping_address="Unter den Linden 1"),
        "shipping_address is text, not an object",
    ),
    "Shopify: customer_locale a number": (_shopify(customer_locale=7), "customer_locale 7"),
    "Shopify: an amount's *_set text": (
        _shopify(total_price_set="59.70"),
        "total_price_set is text, not an object",
    ),
    "Shopify: a refund of Infinity": (
        _shopify_refund(transactions=[{"kind": "refund", "status": "success", "amount": "Infinity"}]),
        "amount 'Infinity'",
    ),
    "WooCommerce: total Infinity": (_woo(total="Infinity"), "total 'Infinity'"),
    "WooCommerce: quantity 1.5": (_woo(line_items=_woo_line(quantity=1.5)), "line_items[].quantity 1.5"),
    "WooCommerce: line_items an object": (_woo(line_items={"a": 1}), "line_items is an object, not a list"),
    "WooCommerce: shipping text": (_woo(shipping="Unter den Linden 1"), "shipping is text, not an object"),
    "WooCommerce: a tax rate that is no number": (
        _woo(tax_lines=[woo.ORDER["tax_lines"][0] | {"rate_percent": "nineteen"}]),
        "tax_lines[].rate_percent 'nineteen'",
    ),
    "WooCommerce: a refund of NaN": (_woo(refunds=[{"id": 1, "total": "NaN"}]), "refunds[].total 'NaN'"),
    "Saleor: total Infinity": (
        _saleor(total={"currency": "EUR", "gross": {"amount": float("inf")}, "tax": {"amount": 9.53}}),
        "total.gross inf",
    ),
    "Saleor: quantity 1.5": (_saleor(lines=_saleor_line(quantity=1.5)), "lines[].quantity 1.5"),
    "Saleor: lines an object": (_saleor(lines={"a": 1}), "lines is an object, not a list"),
    "Saleor: shippingAddress text": (
        _saleor(shippingAddress="Unter den Linden 1"),
        "shippingAddress is text, not an object",
    ),
    "Saleor: fulfillments an object": (
        _saleor(fulfillments={"a": 1}),
        "fulfillments is an object, not a list",
    ),
}


@pytest.mark.parametrize(("case", "reason"), WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_field_of_another_type_is_kept_as_could_not_use_with_the_field(deliver, case, reason):
    platform, topic, body = case
    if topic == "refunds/create":  # its order first
        assert deliver("shopify", "orders/create", shopify.body_of(shopify.ORDER)).status_code == 200
    # when
    response = deliver(platform, topic, body)
    # then
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use"), response.content
    delivery = PlatformDelivery.objects.get(topic=topic, body=body.decode())
    assert reason in delivery.reason


@pytest.mark.parametrize(
    ("nul_at", "outcome", "reason"),
    [
        (b'"#1001\x00"', "used", "order created"),
        (b'"#1001"\x00', "could_not_use", "The body is not JSON"),
    ],
    ids=["in a string", "between values"],
)
def test_a_raw_nul_in_the_body_is_kept_with_it_replaced(deliver, nul_at, outcome, reason):
    # given: a NUL byte, not the escape \u0000 (no JSON encoder writes one, but the body is signed)
    body = shopify.body_of(shopify.ORDER).replace(b'"#1001"', nul_at)
    # when
    response = deliver("shopify", "orders/create", body)
    # then: kept with the NUL (which no text column holds) replaced by U+FFFD, as the bytes that
    # are not UTF-8 are, and applied as that
    assert (response.status_code, response.json()["detail"]) == (200, outcome), response.content
    delivery = PlatformDelivery.objects.get()
    assert delivery.body == body.decode().replace("\x00", "\ufffd")
    assert reason in delivery.reason
    if outcome == "used":
        assert Order.objects.get().number == "#1001\ufffd"


def test_what_the_readers_let_through_and_the_database_refuses_is_kept_and_logged(deliver, caplog):
    # given: the platform's own id of the order, which the readers take as the platform gives it,
    # longer than the column that holds it (64)
    body = shopify.body_of(shopify.order(id="5940139491234" * 6))
    # when
    with caplog.at_level(logging.ERROR, logger="intake.receive"):
        response = deliver("shopify", "orders/create", body)
    # then: kept for a person, with the reason in words, and the traceback in the log
    delivery = _kept_as_could_not_use(response, body)
    assert "DataError" in delivery.reason
    assert "value too long" in delivery.reason
    [logged] = [record for record in caplog.records if record.name == "intake.receive" and record.exc_info]
    assert getattr(logged, "delivery_id", "") == str(delivery.id)
    # and a person's re-run meets the same, and is kept the same
    rerun = delivery_rerun(delivery.id, actor=None, actor_name="ops")
    assert rerun is not None
    assert (rerun.outcome, rerun.runs) == ("could_not_use", 2)
