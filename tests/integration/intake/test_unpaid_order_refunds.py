"""A platform's refund of an order it never said was paid: money that never came in cannot go
back, so the delivery is kept as "could not use" with the reason in words, as the API's 409
says it. An order snapshot that says paid and refunded applies the payment first, so a genuine
"paid, then refunded" order takes its refund."""

import copy
import uuid

import pytest

from intake.models import PlatformDelivery
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Refund
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.connected_shop import tea_house_create

pytestmark = pytest.mark.django_db

# A Shopify order whose payment is not taken yet (a bank transfer, say).
PENDING = shopify.order(financial_status="pending")


@pytest.fixture
def shop() -> Shop:
    return tea_house_create()


@pytest.fixture
def deliver(client, shop):
    """`deliver(topic, payload)`: post it signed, as Shopify does."""

    def post(topic: str, payload: dict):
        body = shopify.body_of(payload)
        headers = shopify.signed_headers(body, topic=topic)
        return client.post("/shops/tea-house/webhook", body, content_type="application/json", **headers)

    return post


def test_a_refund_of_an_order_not_paid_is_kept_as_could_not_use_with_the_reason(deliver, shop):
    # given: the order arrived, not paid
    assert deliver("orders/create", PENDING).json()["detail"] == "used"
    order = Order.objects.get()
    assert order.status == "created"
    # when
    response = deliver("refunds/create", shopify.REFUND)
    # then: answered 200, kept with the reason, nothing recorded
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use")
    delivery = PlatformDelivery.objects.get(topic="refunds/create")
    assert delivery.reason == "This refund is 12.90 EUR, but this order was never paid: nothing can go back."
    assert not Refund.objects.exists()
    assert not OutboxEvent.objects.filter(event_type="order.refunded").exists()
    assert not Notification.objects.filter(order=order, kind="order_refund").exists()


def test_an_order_snapshot_paid_then_refunded_applies_the_payment_before_the_refund(deliver, shop):
    # given: the order arrived, not paid
    deliver("orders/create", PENDING)
    # when: its next state says it was paid, and refunded in part
    refunded = shopify.order(
        updated_at="2026-12-02T12:00:05+01:00",
        financial_status="partially_refunded",
        refunds=[copy.deepcopy(shopify.REFUND)],
    )
    response = deliver("orders/updated", refunded)
    # then
    assert response.json()["detail"] == "used"
    order = Order.objects.get()
    assert order.status == "paid"
    assert order.paid_at is not None
    assert Refund.objects.get().amount_minor == 1290
    assert PlatformDelivery.objects.get(topic="orders/updated").reason == "paid; refund 9012345001 recorded"


def test_an_order_that_arrives_paid_and_refunded_takes_its_refund(deliver, shop):
    # when: the first we hear of the order is its refunded state
    refunded = shopify.order(financial_status="partially_refunded", refunds=[copy.deepcopy(shopify.REFUND)])
    response = deliver("orders/create", refunded)
    # then: created paid, with when, and the refund recorded
    assert response.json()["detail"] == "used"
    order = Order.objects.get()
    assert (order.status, order.paid_at is not None) == ("paid", True)
    assert Refund.objects.get().amount_minor == 1290


def test_a_woocommerce_order_not_paid_whose_snapshot_lists_a_refund_is_kept_with_the_reason(client):
    # given: a WooCommerce store, and its order awaiting a bank transfer (on hold, no payment date)
    Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )
    unpaid = woo.order(
        status="on-hold",
        date_paid=None,
        date_paid_gmt=None,
        refunds=[{"id": 801, "reason": "Goodwill", "total": "-12.90"}],
    )
    body = woo.body_of(unpaid)
    headers = woo.signed_headers(body, topic="order.created", delivery_id=uuid.uuid4().hex)
    # when
    response = client.post("/shops/tea-house-woo/webhook", body, content_type="application/json", **headers)
    # then: the whole delivery is kept, with the reason, and nothing of it applied
    assert (response.status_code, response.json()["detail"]) == (200, "could_not_use")
    delivery = PlatformDelivery.objects.get()
    assert delivery.reason == "This refund is 12.90 EUR, but this order was never paid: nothing can go back."
    assert not Order.objects.exists()
    assert not Refund.objects.exists()
