"""Shopify's mandatory privacy webhooks carried out: `customers/redact` erases the customer's
data of that shop (another shop's orders of the same person stay), `shop/redact` every
customer of the shop, both by the hourly job after the delivery was stored and answered;
`customers/data_request` waits for a person. An email in flight holds an erasure over to the
next run."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from intake.models import PlatformDelivery
from intake.shop_form import ShopForm
from messaging.retention import retention_run
from notifications.models import Notification
from orders.models import Order
from privacy.models import Erasure
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver
from tests.factories import OrderFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def shop() -> Shop:
    return tea_house_create()


_deliver = tea_house_deliver


def test_a_customer_redaction_erases_the_shop_s_orders_of_the_customer_after_the_answer(shop):
    _deliver("orders/create", shopify.ORDER, "evt-create")
    elsewhere = OrderFactory.create(customer_email="ada@example.com")  # the same person, through the API
    # when: Shopify asks; the request only stores it
    assert _deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact") == "for_a_person"
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == "ada@example.com"
    # and the hourly job carries it out
    retention_run()
    # then
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == ""
    assert Order.objects.get(pk=elsewhere.pk).customer_email == "ada@example.com"
    [erasure] = Erasure.objects.all()
    assert (erasure.via, erasure.actor_name) == ("platform", "Shopify tea-house (customers/redact)")
    request = PlatformDelivery.objects.get(topic="customers/redact")
    assert request.outcome == "used"
    assert f"records {erasure.pk}" in request.reason
    assert "ada@example.com" not in request.body + request.reason
    retention_run()  # done once: a later run changes nothing
    assert Erasure.objects.count() == 1


def test_a_shop_redaction_erases_every_customer_of_the_shop(shop):
    _deliver("orders/create", shopify.ORDER, "evt-1")
    _deliver("orders/create", shopify.order(id=2, email="grace@example.com", name="#1002"), "evt-2")
    _deliver("shop/redact", shopify.SHOP_REDACT, "evt-shop-redact")
    retention_run()
    assert set(Order.objects.filter(shop=shop).values_list("customer_email", flat=True)) == {""}
    assert Erasure.objects.count() == 2
    assert PlatformDelivery.objects.get(topic="shop/redact").outcome == "used"


def test_an_email_in_flight_holds_the_redaction_over_to_the_next_run(shop):
    _deliver("orders/create", shopify.ORDER, "evt-create")
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    Notification.objects.filter(order=order).update(
        status="sending", lease_owner="w", lease_expires_at=timezone.now() + timedelta(seconds=60)
    )
    _deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact")
    retention_run()
    assert PlatformDelivery.objects.get(topic="customers/redact").outcome == "for_a_person"
    assert Order.objects.get(pk=order.pk).customer_email == "ada@example.com"
    # when the send is over (its lease ran out), the next run erases
    Notification.objects.filter(order=order).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    retention_run()
    assert Order.objects.get(pk=order.pk).customer_email == ""
    assert PlatformDelivery.objects.get(topic="customers/redact").outcome == "used"


def test_a_data_request_waits_for_a_person_who_exports_and_hands_it_over(shop):
    assert _deliver("customers/data_request", shopify.CUSTOMER_DATA_REQUEST, "evt-data") == "for_a_person"
    retention_run()
    request = PlatformDelivery.objects.get(topic="customers/data_request")
    assert request.outcome == "for_a_person"
    assert "customer_export" in request.reason


def _replay(body: bytes, signature: str, *, topic: str, event_id: str) -> PlatformDelivery:
    """A captured delivery posted again, bytes and HMAC as they were, under headers of the
    attacker's choosing (Shopify signs the body alone)."""
    headers: dict = shopify.signed_headers(body, topic=topic, event_id=event_id)
    headers["HTTP_X_SHOPIFY_HMAC_SHA256"] = signature
    response = Client().post("/shops/tea-house/webhook", body, content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    return PlatformDelivery.objects.get(event_key=event_id)


@pytest.mark.parametrize(
    ("captured_topic", "captured", "replayed_as"),
    [
        ("orders/create", shopify.ORDER, "shop/redact"),
        ("orders/create", shopify.ORDER, "customers/redact"),
        ("customers/data_request", shopify.CUSTOMER_DATA_REQUEST, "customers/redact"),
        ("customers/redact", shopify.CUSTOMER_REDACT, "shop/redact"),
    ],
    ids=[
        "an order as the shop's erasure",
        "an order as a customer's",
        "an export as an erasure",
        "a customer's as the shop's",
    ],
)
def test_a_captured_delivery_replayed_under_a_privacy_topic_erases_nothing(
    shop, captured_topic, captured, replayed_as
):
    # given: a delivery of the shop, seen by someone on its way (a proxy's log, a staging copy)
    _deliver("orders/create", shopify.ORDER, "evt-create")
    body = shopify.body_of(captured)
    signature = shopify.signed_headers(body, topic=captured_topic)["HTTP_X_SHOPIFY_HMAC_SHA256"]
    # when: posted again with another topic and a fresh event id
    replayed = _replay(body, signature, topic=replayed_as, event_id="evt-replayed")
    retention_run()
    # then: kept, with why it cannot be that request, and nobody is erased
    assert replayed.outcome == "could_not_use"
    assert f"not a {replayed_as} request" in replayed.reason
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == "ada@example.com"
    assert not Erasure.objects.exists()


def test_a_privacy_request_naming_another_shop_erases_nothing(shop):
    # given
    _deliver("orders/create", shopify.ORDER, "evt-create")
    elsewhere = dict(shopify.SHOP_REDACT, shop_domain="other-shop.myshopify.com")
    # when
    assert _deliver("shop/redact", elsewhere, "evt-shop-redact") == "could_not_use"
    retention_run()
    # then
    reason = PlatformDelivery.objects.get(topic="shop/redact").reason
    assert "other-shop.myshopify.com" in reason
    assert shopify.SHOP_DOMAIN in reason
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == "ada@example.com"


def test_two_shops_cannot_share_a_secret(shop):
    # Shopify and WooCommerce sign the body alone, and the header naming the shop is not signed:
    # a delivery of one shop re-posted at the other's address would verify there.
    form = ShopForm(
        data={
            "name": "Other House",
            "slug": "other-house",
            "platform": "shopify",
            "domain": "other-house.myshopify.com",
            "webhook_secret": shopify.CLIENT_SECRET,
            "active": "on",
        }
    )
    assert not form.is_valid()
    assert form.errors["webhook_secret"] == [
        "Another connected shop has this secret. Each shop needs its own (Shopify: an app of its own; "
        "WooCommerce: a secret of its own on its webhooks): the platforms sign the body alone, so a "
        "delivery for one would be accepted at the other's address."
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        Shop.objects.create(
            slug="other-house",
            name="Other House",
            platform="woocommerce",
            domain="https://other-house.example",
            webhook_secret=shopify.CLIENT_SECRET,
        )
