"""Attacks on the platforms' parcel news (intake/shopify/parcels.py, intake/woocommerce/parcel_news.py,
intake/saleor/parcel_news.py, intake/apply.py, intake/receive.py, orders/parcel_progress.py),
through the real webhook views. A failing test is a finding; a passing one documents a defence."""

import copy
import uuid
from unittest import mock

import pytest
from django.test import Client
from django.utils import timezone

from intake import receive
from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Order, Shipment, ShipmentEvent
from orders.personal_data import orders_erase
from shops.models import Shop
from tests import saleor_payloads as saleor
from tests import shopify_payloads as shopify
from tests import woocommerce_payloads as woo
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery

pytestmark = pytest.mark.django_db
Outcome = PlatformDelivery.Outcome


def _news_emails() -> list[str]:
    return sorted(Notification.objects.filter(kind__startswith="parcel_").values_list("kind", flat=True))


def _shopify_parcel() -> None:
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")


# --- Shopify -------------------------------------------------------------------------------------


def test_shopify_news_dated_before_year_one_in_utc_does_not_poison_the_parcel():
    """.NET's DateTime.MinValue with a local offset ("0001-01-01T00:00:00+01:00") is the year 0 in
    UTC: PostgreSQL keeps it (BC), psycopg cannot read it back. Shopify's reader, unlike
    WooCommerce's and Saleor's (astimezone -> OverflowError), never converts it."""
    _shopify_parcel()
    zero = shopify.fulfillment_event(id=1, status="in_transit", happened_at="0001-01-01T00:00:00+01:00")
    tea_house_deliver("fulfillment_events/create", zero, "evt-zero")
    # when: the real news after it
    delivered = shopify.fulfillment_event(id=2, status="delivered", happened_at="2026-12-02T13:40:00+01:00")
    tea_house_deliver("fulfillment_events/create", delivered, "evt-delivered")
    # then: the parcel can still be read, and its customer is told it was delivered
    parcel = Shipment.objects.get()
    list(ShipmentEvent.objects.all())
    assert parcel.progress == "delivered", tea_house_delivery("evt-delivered").reason
    assert _news_emails() == ["parcel_delivered"]


def test_shopify_news_of_another_shop_with_the_same_ids_never_touches_this_shops_parcel():
    # given: Tea House's parcel, and a second Shopify shop whose order and fulfillment ids are the same
    _shopify_parcel()
    secret, domain = "other-secret-0123456789", "other-house.myshopify.com"
    Shop.objects.create(
        slug="other-house", name="Other House", platform="shopify", domain=domain, webhook_secret=secret
    )
    body = shopify.body_of(shopify.fulfillment_event(status="delivered"))
    headers: dict = shopify.signed_headers(
        body, topic="fulfillment_events/create", secret=secret, domain=domain
    )
    # when: the other shop's news of "its" parcel 4451234001 of "its" order
    response = Client().post("/shops/other-house/webhook", body, content_type="application/json", **headers)
    # then: it waits for its own order; Tea House's parcel is untouched
    assert response.status_code == 200
    assert response.json()["detail"] == "waiting"
    assert Shipment.objects.get().progress == "shipped"
    assert not ShipmentEvent.objects.exists()
    assert _news_emails() == []


def test_shopify_event_id_as_text_or_number_is_the_same_news():
    _shopify_parcel()
    tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-1")
    as_text = shopify.fulfillment_event(id=str(shopify.FULFILLMENT_EVENT["id"]), message="other words")
    assert tea_house_deliver("fulfillment_events/create", as_text, "evt-2") == "used"
    assert ShipmentEvent.objects.count() == 1
    assert _news_emails() == ["parcel_out_for_delivery"]


@pytest.mark.parametrize(
    "change",
    [
        {"happened_at": 1733050800},
        {"happened_at": ["2026-12-02T08:12:00+01:00"]},
        {"happened_at": {"at": 1}},
        {"happened_at": "9999-12-31T23:59:59-14:00"},
        {"happened_at": "0001-01-01T00:00:00-14:00"},
        {"happened_at": "2026-12-02T08:12:00+01:00\u0000"},
        {"id": {"a": 1}},
        {"id": "\ud800"},
        {"id": "x" * 5000},
        {"fulfillment_id": ["4451234001"]},
        {"status": ["delivered"]},
        {"status": {"delivered": True}},
        {"message": "m" * 1_000_000},
        {"message": ["a"]},
        {"order_id": {"id": 1}},
    ],
)
def test_shopify_news_of_any_shape_is_answered_200(change):
    _shopify_parcel()
    tea_house_deliver("fulfillment_events/create", shopify.fulfillment_event(**change), "evt-x")
    assert tea_house_delivery("evt-x").outcome in {Outcome.USED, Outcome.COULD_NOT_USE, Outcome.WAITING}
    assert len(_news_emails()) <= 1


def test_shopify_news_of_an_erased_order_stores_nothing_new():
    _shopify_parcel()
    tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-1")
    orders_erase([Order.objects.get().pk], now=timezone.now())
    # when: the same news again (other bytes), and new news
    tea_house_deliver("fulfillment_events/create", shopify.fulfillment_event(message="again"), "evt-2")
    delivered = shopify.fulfillment_event(id=2, status="delivered", happened_at="2026-12-02T13:40:00+01:00")
    assert tea_house_deliver("fulfillment_events/create", delivered, "evt-3") == "could_not_use"
    # then
    assert ShipmentEvent.objects.count() <= 1
    assert _news_emails() == ["parcel_out_for_delivery"]
    assert tea_house_delivery("evt-3").body == ""


def test_a_waiting_news_applied_when_its_order_arrives_keeps_what_it_did():
    """_waiting_apply evaluates its list once; the parcel's delivery applies the news in a nested
    _waiting_apply, then the outer loop applies the same (stale, in-memory WAITING) news again
    and overwrites its reason with "nothing new"."""
    tea_house_create()
    assert tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel") == "waiting"
    assert tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-ofd") == "waiting"
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    assert _news_emails() == ["parcel_out_for_delivery"]
    reason = tea_house_delivery("evt-ofd").reason
    assert "out for delivery recorded (email parcel.out_for_delivery)" in reason, reason


def _fulfillment(pk: int, line: int, quantity: int) -> dict:
    item = copy.deepcopy(shopify.ORDER["line_items"][line]) | {"quantity": quantity}
    return copy.deepcopy(shopify.FULFILLMENT) | {"id": pk, "line_items": [item]}


def test_waiting_deliveries_are_each_applied_once_when_their_order_arrives():
    """Each waiting parcel's delivery re-runs _waiting_apply in a nested call (recursion depth =
    the number of waiting parcels), and every outer level re-applies what the inner ones did:
    (parcels + 1) x news applications instead of one each."""
    tea_house_create()
    parcels = [_fulfillment(11, 0, 1), _fulfillment(12, 0, 1), _fulfillment(13, 1, 1)]
    for n, parcel in enumerate(parcels):
        assert tea_house_deliver("fulfillments/create", parcel, f"evt-p{n}") == "waiting"
    statuses = ["in_transit", "in_transit", "out_for_delivery", "delivered"]
    for n, status in enumerate(statuses):
        news = shopify.fulfillment_event(
            id=100 + n, fulfillment_id=11, status=status, happened_at=f"2026-12-02T0{n + 1}:00:00+01:00"
        )
        assert tea_house_deliver("fulfillment_events/create", news, f"evt-n{n}") == "waiting"
    with mock.patch.object(receive, "delivery_apply", wraps=receive.delivery_apply) as applied:
        tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    assert Shipment.objects.count() == 3
    assert Shipment.objects.get(shop_shipment_id="11").progress == "delivered"
    assert applied.call_count == 1 + len(parcels) + len(statuses)


# --- WooCommerce ---------------------------------------------------------------------------------


@pytest.fixture
def woo_deliver(client):
    Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )

    def post(payload: dict, topic: str = "order.updated") -> str:
        body = woo.body_of(payload)
        signed = woo.signed_headers(body, topic=topic, delivery_id=uuid.uuid4().hex)
        response = client.post(
            "/shops/tea-house-woo/webhook", body, content_type="application/json", **signed
        )
        assert response.status_code == 200
        return response.json()["detail"]

    return post


def _woo_reason() -> str:
    return PlatformDelivery.objects.latest("received_at").reason


def test_woocommerce_trackships_delivered_order_status_arriving_first_loses_no_parcel(woo_deliver):
    """TrackShip (and AST) can move a completed order to its custom order status "delivered".
    WooCommerce's webhooks run from Action Scheduler, in no promised order: when the
    "delivered" save arrives before the "completed" one, the first records no parcel (status is
    not "completed") and the second is older than it (stale): no "shipped" email, no news."""
    woo_deliver(woo.ORDER, "order.created")
    delivered_status = woo.shipped("delivered", modified="2026-12-03T10:00:00", news="delivered")
    woo_deliver(delivered_status)
    woo_deliver(woo.shipped(modified="2026-12-01T08:00:00", news="in_transit"))
    assert Shipment.objects.exists(), _woo_reason()
    assert _news_emails() == ["parcel_delivered"]


def test_woocommerce_order_saved_many_times_with_one_status_is_one_email(woo_deliver):
    woo_deliver(woo.ORDER, "order.created")
    for minute in range(20):
        woo_deliver(woo.shipped(modified=f"2026-12-01T08:{minute:02}:00", news="out_for_delivery"))
    assert ShipmentEvent.objects.count() == 1
    assert _news_emails() == ["parcel_out_for_delivery"]


def test_woocommerce_failed_attempt_then_out_again_then_delivered_tells_each_once(woo_deliver):
    woo_deliver(woo.ORDER, "order.created")
    for hour, status in enumerate(
        ["out_for_delivery", "failure", "out_for_delivery", "failure", "delivered"]
    ):
        woo_deliver(woo.shipped(modified=f"2026-12-01T1{hour}:00:00", news=status))
        woo_deliver(woo.shipped(modified=f"2026-12-01T1{hour}:30:00", news=status))  # another save
    assert Shipment.objects.get().progress == "delivered"
    assert _news_emails() == ["parcel_delivered", "parcel_delivery_failed", "parcel_out_for_delivery"]


def test_woocommerce_php_object_meta_is_read_as_the_first_item(woo_deliver):
    woo_deliver(woo.ORDER, "order.created")
    payload = woo.shipped(modified="2026-12-01T08:00:00")
    payload["meta_data"].append(
        {"id": 9902, "key": "ts_shipment_status", "value": {"0": {"status": "delivered"}}}
    )
    assert woo_deliver(payload) == "used"
    assert Shipment.objects.get().progress == "delivered"


@pytest.mark.parametrize(
    "value",
    [
        [{"status": ["delivered"]}],
        [{"status": {"x": 1}}],
        'a:1:{i:0;a:1:{s:6:"status";s:9:"delivered";}}',
        [None, {"status": "delivered"}],
        {"1": {"status": "delivered"}},
        [{"status": "delivered\u0000"}],
        12,
    ],
)
def test_woocommerce_odd_trackship_values_are_no_news_and_the_order_is_applied(woo_deliver, value):
    woo_deliver(woo.ORDER, "order.created")
    payload = woo.shipped(modified="2026-12-01T08:00:00")
    payload["meta_data"].append({"id": 9902, "key": "ts_shipment_status", "value": value})
    assert woo_deliver(payload) == "used"
    assert Shipment.objects.get().progress == "shipped"
    assert Notification.objects.filter(kind="order_shipment").count() == 1


@pytest.mark.parametrize(
    "status_date", ["0000-00-00 00:00:00", "0001-01-01 00:00:00", "[]", "9999-12-31 23:59:59"]
)
def test_woocommerce_odd_status_date_leaves_the_order_applied(woo_deliver, status_date):
    woo_deliver(woo.ORDER, "order.created")
    payload = woo.shipped(modified="2026-12-01T08:00:00", news="in_transit", status_date=status_date)
    assert woo_deliver(payload) == "used"
    assert Notification.objects.filter(kind="order_shipment").count() == 1
    Shipment.objects.get()  # readable


def test_woocommerce_a_meta_key_that_is_not_text_does_not_hold_the_order(woo_deliver):
    """docs/platforms.md: a parcel's news is no reason to hold the order's other emails. The news
    reader builds a dict keyed by each meta item's key: a list as a key is a TypeError, and the
    whole order becomes "could not use" (no "shipped" email)."""
    woo_deliver(woo.ORDER, "order.created")
    payload = woo.shipped(modified="2026-12-01T08:00:00")
    payload["meta_data"].append({"id": 9990, "key": ["_some_plugin"], "value": 1})
    assert woo_deliver(payload) == "used", _woo_reason()
    assert Notification.objects.filter(kind="order_shipment").count() == 1


# --- Saleor --------------------------------------------------------------------------------------


def _saleor_fulfilled(metadata: list[dict] | None = None, *, issued: str = "") -> dict:
    tea = saleor.fulfillment(1, [(saleor.LINE_TEA, "TEA-GREEN", 2), (saleor.LINE_POT, None, 1)])
    tea["metadata"] = metadata or []
    order = saleor.order(status="FULFILLED", updatedAt="2026-12-01T09:00:00+00:00", fulfillments=[tea])
    return saleor.event("FulfillmentMetadataUpdated", order, issued_at=issued)


def _meta(status: str, at: str) -> list[dict]:
    return [{"key": "parcel_status", "value": status}, {"key": "parcel_status_at", "value": at}]


def test_saleor_metadata_edited_back_and_forth_tells_each_kind_once(saleor_deliver):
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    steps = [
        ("out_for_delivery", "2026-12-01T10:00:00Z"),
        ("in_transit", "2026-12-01T09:00:00Z"),  # a correction back, older
        ("out_for_delivery", "2026-12-01T10:00:00Z"),  # and forth again
        ("out_for_delivery", "2026-12-01T10:00:00+00:00"),  # the same time, other words
        ("attempted_delivery", "2026-12-01T12:00:00Z"),
        ("out_for_delivery", "2026-12-02T08:00:00Z"),
        ("delivered", "2026-12-02T10:00:00Z"),
        ("failure", "2026-12-02T11:00:00Z"),
    ]
    for n, (status, at) in enumerate(steps):
        issued = f"2026-12-03T00:00:{n:02}+00:00"
        assert (
            saleor_deliver(
                "fulfillment_metadata_updated", _saleor_fulfilled(_meta(status, at), issued=issued)
            )
            == "used"
        )
    assert Shipment.objects.get().progress == "delivered"
    assert _news_emails() == ["parcel_delivered", "parcel_delivery_failed", "parcel_out_for_delivery"]


@pytest.mark.parametrize(
    "metadata",
    [
        _meta("delivered", "0001-01-01T00:30:00+01:00"),
        _meta("delivered", "9999-12-31T23:59:59-14:00"),
        _meta("delivered", "2026-12-01T10:00:00Z\u0000"),
        [
            {"key": "parcel_status", "value": ["delivered"]},
            {"key": "parcel_status_at", "value": "2026-12-01T10:00:00Z"},
        ],
        [{"key": "parcel_status", "value": "delivered"}, {"key": "parcel_status_at", "value": ["x"]}],
        [{"key": "parcel_status", "value": "delivered"}, {"key": "parcel_status_at", "value": 1733050800}],
    ],
)
def test_saleor_odd_metadata_leaves_the_order_applied(saleor_deliver, metadata):
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    assert saleor_deliver("fulfillment_metadata_updated", _saleor_fulfilled(metadata)) == "used"
    assert Notification.objects.filter(kind="order_shipment").count() == 1
    Shipment.objects.get()  # readable


def test_saleor_a_metadata_key_that_is_not_text_does_not_hold_the_order(saleor_deliver):
    saleor_deliver("order_created", saleor.event("OrderCreated", saleor.ORDER))
    metadata = [{"key": {"odd": 1}, "value": "x"}, *_meta("delivered", "2026-12-01T10:00:00Z")]
    assert saleor_deliver("fulfillment_metadata_updated", _saleor_fulfilled(metadata)) == "used"
    assert Notification.objects.filter(kind="order_shipment").count() == 1
