"""A platform's tracking link goes into the parcel email's button: it meets the API's rule for
`tracking_url` (orders/shipments.py, `tracking_url_problem`). A link that does not is left out:
the parcel is still applied and its email still tells the customer (carrier, tracking number),
and the delivery says why the link was left out. Each platform whose reading gives a link
(Shopify's Fulfillment, WooCommerce's Shipment Tracking item) is posted through the real
webhook view; Saleor's gives none."""

import copy
import uuid

import pytest
from django.test import Client

from intake.models import PlatformDelivery
from notifications.content.preview import notification_preview_now
from notifications.models import Notification
from orders.models import Shipment
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery

pytestmark = pytest.mark.django_db

UNSAFE = [
    ("http://evil.example/t", "Use an https:// address"),
    ("javascript:alert(document.cookie)", "Use an https:// address"),
    ("https://evil.example/t\nBcc: x", "not a valid https:// address"),
    ("https://-not-a-host-/t", "not a valid https:// address"),
    ("https://www.dhl.de/track?piececode=" + "0" * 500, "at most 500"),
    # Past Django's URLValidator, which the database would refuse: the delivery was a 500.
    ("https://evil.example/t\u0000", "contains U+0000"),
    ("https://evil.example/t\ud800", "contains U+D800"),
]
UNSAFE_IDS = ["http", "javascript", "a line break", "no valid host", "too long", "a NUL", "a lone surrogate"]


def _the_parcel_emailed_without_the_link(delivery: PlatformDelivery, shipment: Shipment, why: str) -> None:
    # the customer hears of the parcel, without the link
    email = Notification.objects.get(order=shipment.order, kind="order_shipment")
    rendered = notification_preview_now(email).email
    assert rendered is not None
    assert "evil.example" not in rendered.text + rendered.html
    assert "Track your parcel" not in rendered.text
    assert 'class="button"' not in rendered.html
    assert "00340434161234567890" in rendered.text
    assert (shipment.tracking_url, shipment.tracking_number) == ("", "00340434161234567890")
    # and the delivery says why the link was left out
    assert delivery.outcome == PlatformDelivery.Outcome.USED
    assert f"shipment {shipment.shop_shipment_id} recorded without its tracking link: " in delivery.reason
    assert why in delivery.reason, delivery.reason


@pytest.mark.parametrize(("link", "why"), UNSAFE, ids=UNSAFE_IDS)
def test_shopify_an_unsafe_tracking_link_is_left_out_and_the_parcel_still_emailed(link, why):
    # given
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    fulfillment = copy.deepcopy(shopify.FULFILLMENT) | {"tracking_url": link, "tracking_urls": [link]}
    # when
    assert tea_house_deliver("fulfillments/create", fulfillment, "evt-parcel") == "used"
    # then
    _the_parcel_emailed_without_the_link(tea_house_delivery("evt-parcel"), Shipment.objects.get(), why)


def test_shopify_the_same_rule_holds_for_a_parcel_inside_the_order():
    # given
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    fulfillment = copy.deepcopy(shopify.FULFILLMENT) | {"tracking_url": "http://evil.example/t"}
    updated = shopify.order(updated_at="2026-12-01T09:00:01+01:00", fulfillments=[fulfillment])
    # when
    assert tea_house_deliver("orders/updated", updated, "evt-updated") == "used"
    # then
    delivery = tea_house_delivery("evt-updated")
    _the_parcel_emailed_without_the_link(delivery, Shipment.objects.get(), "Use an https:// address")


def test_shopify_a_safe_tracking_link_is_kept():
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    assert tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel") == "used"
    assert Shipment.objects.get().tracking_url == shopify.FULFILLMENT["tracking_url"]
    assert tea_house_delivery("evt-parcel").reason == "shipment 4451234001 recorded"


def _woocommerce_completed(link: str) -> dict:
    tracking = {
        "key": "_wc_shipment_tracking_items",
        "value": [
            {
                "tracking_provider": "DHL",
                "tracking_number": "00340434161234567890",
                "custom_tracking_link": link,
                "date_shipped": "1733050800",
                "tracking_id": "a1b2",
            }
        ],
    }
    return woo.order(status="completed", date_modified_gmt="2026-12-01T08:00:00", meta_data=[tracking])


def _woocommerce_deliver(topic: str, payload: dict) -> PlatformDelivery:
    body = woo.body_of(payload)
    headers: dict = woo.signed_headers(body, topic=topic, delivery_id=uuid.uuid4().hex)
    response = Client().post("/shops/tea-house-woo/webhook", body, content_type="application/json", **headers)
    assert response.status_code == 200, response.content
    return PlatformDelivery.objects.get(pk=response.json()["delivery"])


@pytest.mark.parametrize(("link", "why"), UNSAFE, ids=UNSAFE_IDS)
def test_woocommerce_an_unsafe_tracking_link_is_left_out_and_the_parcel_still_emailed(link, why):
    # given
    Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )
    _woocommerce_deliver("order.created", woo.ORDER)
    # when
    delivery = _woocommerce_deliver("order.updated", _woocommerce_completed(link))
    # then
    _the_parcel_emailed_without_the_link(delivery, Shipment.objects.get(), why)


def test_a_link_stored_before_the_rule_is_left_out_of_the_email_too():
    # given: a parcel recorded by an older release, its http link stored as the platform sent it
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    assert (
        tea_house_deliver("fulfillments/create", copy.deepcopy(shopify.FULFILLMENT), "evt-parcel") == "used"
    )
    shipment = Shipment.objects.get()
    Shipment.objects.filter(pk=shipment.pk).update(tracking_url="http://evil.example/t")
    # when: its email is rendered (a first send, or a reviewer's resend after the snapshot expired)
    email = Notification.objects.get(order=shipment.order, kind="order_shipment")
    rendered = notification_preview_now(email).email
    # then
    assert rendered is not None
    assert "evil.example" not in rendered.text + rendered.html
    assert "00340434161234567890" in rendered.text
