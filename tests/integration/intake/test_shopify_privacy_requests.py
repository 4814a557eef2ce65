"""Shopify's mandatory privacy webhooks carried out: `customers/redact` erases the customer's
data of that shop (another shop's orders of the same person stay), `shop/redact` every
customer of the shop, both by the hourly job after the delivery was stored and answered;
`customers/data_request` waits for a person. An email in flight holds an erasure over to the
next run."""

import hashlib
import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.test import Client
from django.utils import timezone

from intake.models import PlatformDelivery
from intake.shop_form import ShopForm
from intake.shopify.shop_redact import SHOP_REDACT_QUIET
from messaging.models import RetentionRun
from messaging.retention import retention_run
from notifications.models import Notification
from orders.models import Order
from privacy.models import Erasure
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery
from tests.factories import OrderFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def shop() -> Shop:
    return tea_house_create()


_deliver = tea_house_deliver


def _shop_left_the_app(shop: Shop) -> None:
    """The shop's deliveries so far received long enough ago for a shop/redact to be carried out
    (intake/shopify/shop_redact.py)."""
    PlatformDelivery.objects.filter(shop=shop).update(
        received_at=F("received_at") - SHOP_REDACT_QUIET - timedelta(hours=1)
    )


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
    _shop_left_the_app(shop)
    assert _deliver("shop/redact", shopify.SHOP_REDACT, "evt-shop-redact") == "for_a_person"
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
    return PlatformDelivery.objects.get(pk=response.json()["delivery"])


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
    # given: a delivery of the shop, seen by someone on its way (a proxy's log, a staging copy),
    # stored before its key was its body's digest: a copy of it is no duplicate, so the body's
    # check is what guards (a copy of one stored since is a duplicate, test_shopify_privacy_replays.py)
    _deliver("orders/create", shopify.ORDER, "evt-create")
    PlatformDelivery.objects.update(event_key="evt-create")
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
    # nor one that WooCommerce would sign with as the same key (it decodes HTML entities)
    woo = ShopForm(
        data={
            "name": "Woo House",
            "slug": "woo-house",
            "platform": "woocommerce",
            "domain": "https://woo-house.example",
            "webhook_secret": shopify.CLIENT_SECRET.replace("&", "&amp;") + "&amp;",
            "active": "on",
        }
    )
    Shop.objects.filter(slug="tea-house").update(webhook_secret=shopify.CLIENT_SECRET + "&")
    assert not woo.is_valid()
    assert "Another connected shop has this secret" in str(woo.errors["webhook_secret"])
    Shop.objects.filter(slug="tea-house").update(webhook_secret=shopify.CLIENT_SECRET)
    with pytest.raises(IntegrityError), transaction.atomic():
        Shop.objects.create(
            slug="other-house",
            name="Other House",
            platform="woocommerce",
            domain="https://other-house.example",
            webhook_secret=shopify.CLIENT_SECRET,
        )


_REDACT, _SHOP_REDACT, _DATA_REQUEST = (
    shopify.CUSTOMER_REDACT,
    shopify.SHOP_REDACT,
    shopify.CUSTOMER_DATA_REQUEST,
)


@pytest.mark.parametrize(
    ("topic", "request_body", "field"),
    [
        ("customers/redact", _REDACT | {"orders_to_redact": 5}, "orders_to_redact"),
        ("customers/redact", _REDACT | {"orders_to_redact": True}, "orders_to_redact"),
        ("customers/redact", _REDACT | {"orders_to_redact": ["\u0000"]}, "orders_to_redact"),
        ("customers/redact", _REDACT | {"orders_to_redact": [1.5, True]}, "orders_to_redact"),
        ("customers/redact", _REDACT | {"customer": {"email": ["ada@example.com"]}}, "customer"),
        ("customers/redact", _REDACT | {"shop_id": "954889"}, "shop_id"),
        ("shop/redact", _SHOP_REDACT | {"shop_id": True}, "shop_id"),
        ("shop/redact", _SHOP_REDACT | {"shop_domain": [shopify.SHOP_DOMAIN]}, "shop_domain"),
        ("customers/data_request", _DATA_REQUEST | {"orders_requested": "1"}, "orders_requested"),
        ("customers/data_request", _DATA_REQUEST | {"data_request": [9999]}, "data_request"),
    ],
    ids=[
        "orders an int",
        "orders true",
        "an order id with a NUL",
        "an order id a fraction",
        "an email a list",
        "the shop's id a string",
        "the shop's id true",
        "the shop's domain a list",
        "orders requested a string",
        "the data request a list",
    ],
)
def test_a_privacy_request_whose_fields_are_not_of_their_type_is_kept_with_the_reason(
    shop, topic, request_body, field
):
    _deliver("orders/create", shopify.ORDER, "evt-create")
    # when
    assert _deliver(topic, request_body, "evt-malformed") == "could_not_use"
    retention_run()  # and the hourly job runs, and is recorded
    # then
    request = PlatformDelivery.objects.get(topic=topic)
    assert f"`{field}`" in request.reason
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == "ada@example.com"
    assert RetentionRun.objects.exists()


def test_a_customer_with_no_email_and_order_ids_as_strings_is_a_request_carried_out(shop):
    # Shopify's customer may have a phone and no email; its ids may come as strings.
    _deliver("orders/create", shopify.ORDER, "evt-create")
    request = shopify.CUSTOMER_REDACT | {
        "customer": {"id": 191167, "email": None, "phone": "555-625-1199"},
        "orders_to_redact": [str(shopify.ORDER_ID)],
    }
    # when
    assert _deliver("customers/redact", request, "evt-redact") == "for_a_person"
    retention_run()
    # then: the order it names is erased
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == ""
    assert PlatformDelivery.objects.get(topic="customers/redact").outcome == "used"


@pytest.mark.parametrize("poison", [5, True, ["\u0000"]], ids=["an int", "true", "a NUL id"])
def test_a_stored_request_that_fails_is_set_aside_and_the_job_carries_on(shop, poison, caplog):
    # given: a request stored as one to carry out (before its fields' types were checked), first
    coffee = Shop.objects.create(
        slug="coffee",
        name="Coffee",
        platform="shopify",
        domain="coffee.myshopify.com",
        webhook_secret=hashlib.sha256(b"the coffee shop's app").hexdigest()[:38],
    )
    request = _REDACT | {"shop_domain": coffee.domain, "orders_to_redact": poison}
    malformed = PlatformDelivery.objects.create(
        shop=coffee,
        event_key="coffee-poison",
        topic="customers/redact",
        body=shopify.body_of(request).decode(),
        outcome="for_a_person",
    )
    # and another shop's genuine one after it
    _deliver("orders/create", shopify.ORDER, "evt-create")
    _deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact")
    # when: the hourly job runs
    retention_run()
    # then: the malformed request is kept for a person, with why, and its traceback logged
    malformed.refresh_from_db()
    assert malformed.outcome == "could_not_use"
    assert malformed.reason.startswith("The erasure it asks for failed")
    assert any(record.exc_info and "coffee-poison" in record.getMessage() for record in caplog.records)
    # and the genuine one is carried out, and the run recorded
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == ""
    assert PlatformDelivery.objects.get(shop=shop, topic="customers/redact").outcome == "used"
    assert RetentionRun.objects.count() == 1


def test_a_request_the_database_holds_up_waits_for_the_next_run(shop):
    # given: a genuine request, and its customer's order locked by another transaction
    _deliver("orders/create", shopify.ORDER, "evt-create")
    _deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact")
    order = Order.objects.get(platform_order_id=str(shopify.ORDER_ID))
    locked, release = threading.Event(), threading.Event()

    def hold_the_order() -> None:
        try:
            with transaction.atomic():
                Order.objects.select_for_update().get(pk=order.pk)
                locked.set()
                release.wait(10)
        finally:
            connection.close()  # this thread's own connection

    holder = threading.Thread(target=hold_the_order)
    holder.start()
    assert locked.wait(10)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        # when: the job runs while the lock is held (it gives up waiting: OperationalError)
        retention_run()
    finally:
        release.set()
        holder.join()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    # then: the request waits for the next run, not for a person
    assert PlatformDelivery.objects.get(topic="customers/redact").outcome == "for_a_person"
    retention_run()
    assert PlatformDelivery.objects.get(topic="customers/redact").outcome == "used"
    assert Order.objects.get(pk=order.pk).customer_email == ""


@pytest.mark.parametrize(
    ("topic", "request_body"),
    [("customers/redact", shopify.CUSTOMER_REDACT), ("shop/redact", shopify.SHOP_REDACT)],
    ids=["a customer's", "the shop's"],
)
def test_an_erasure_request_leaves_the_orders_placed_after_it_was_received(shop, topic, request_body):
    # given: a request about Ada, received; and Ada orders again before the hourly job runs
    _deliver("orders/create", shopify.ORDER, "evt-create")
    _shop_left_the_app(shop)  # as it has when Shopify sends shop/redact
    assert _deliver(topic, request_body, "evt-redact") == "for_a_person"
    _deliver("orders/create", shopify.order(id=42, name="#2001"), "evt-create-2")
    new_order = Order.objects.get(platform_order_id="42")
    # when
    retention_run()
    # then: the order from before the request is erased; the new one is not, and its
    # confirmation still goes
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == ""
    new_order.refresh_from_db()
    assert (new_order.customer_email, new_order.erased_at) == ("ada@example.com", None)
    assert Notification.objects.get(order=new_order).status == "pending"
    assert "ada@example.com" in tea_house_delivery("evt-create-2").body
    assert PlatformDelivery.objects.get(topic=topic).outcome == "used"


def test_a_customer_redaction_erases_an_order_it_names_that_reached_us_after_it(shop):
    # given: the request names an order whose delivery is applied only after the request came
    assert _deliver("customers/redact", shopify.CUSTOMER_REDACT, "evt-redact") == "for_a_person"
    _deliver("orders/create", shopify.ORDER, "evt-create")
    # when
    retention_run()
    # then
    assert Order.objects.get(platform_order_id=str(shopify.ORDER_ID)).customer_email == ""
