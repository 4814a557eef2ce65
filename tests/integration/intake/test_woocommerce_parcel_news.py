"""WooCommerce's parcel news, as the TrackShip plugin writes it into the order's meta
(intake/woocommerce/parcel_news.py), posted through the real webhook view with the order it
rides in: applied after the order's parcel, once, a status resent with the order changing
nothing, news that cannot be taken left out with its reason while the order is applied."""

import uuid
from datetime import UTC, datetime

import pytest

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Order, Shipment, ShipmentEvent
from shops.models import Shop
from tests import woocommerce_payloads as woo

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop() -> Shop:
    return Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform=Shop.Platform.WOOCOMMERCE,
        domain="https://tea-house.example",
        webhook_secret=woo.WEBHOOK_SECRET,
    )


@pytest.fixture
def deliver(client, shop):
    def post(payload: dict, topic: str = "order.updated") -> str:
        body = woo.body_of(payload)
        signed = woo.signed_headers(body, topic=topic, delivery_id=uuid.uuid4().hex)
        response = client.post(
            "/shops/tea-house-woo/webhook", body, content_type="application/json", **signed
        )
        assert response.status_code == 200
        return response.json()["detail"]

    return post


def _news_emails() -> list[str]:
    return sorted(Notification.objects.filter(kind__startswith="parcel_").values_list("kind", flat=True))


def _latest_reason() -> str:
    return PlatformDelivery.objects.latest("received_at").reason


def test_news_in_the_delivery_that_completes_the_order_is_applied_after_its_parcel(deliver, shop):
    # given
    deliver(woo.ORDER, "order.created")
    # when: the completed order already carries TrackShip's status (its parcel is new)
    assert deliver(woo.shipped(modified="2026-12-01T08:00:00", news="out_for_delivery")) == "used"
    # then: its time is the order's modification time, in UTC (WooCommerce's _gmt)
    parcel = Shipment.objects.get()
    assert (parcel.shop_shipment_id, parcel.progress) == ("completed-727", "out_for_delivery")
    news = ShipmentEvent.objects.get()
    assert news.happened_at == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    assert news.shop_event_id == "trackship:out_for_delivery:2026-12-01T08:00:00+00:00"
    assert _news_emails() == ["parcel_out_for_delivery"]
    assert (
        "parcel completed-727: out for delivery recorded (email parcel.out_for_delivery)" in _latest_reason()
    )


def test_the_same_status_saved_again_with_the_order_changes_nothing(deliver, shop):
    # given
    deliver(woo.ORDER, "order.created")
    deliver(woo.shipped(modified="2026-12-01T08:00:00", news="out_for_delivery"))
    # when: the same bytes again, then the order saved again later (a note, TrackShip's next check)
    assert deliver(woo.shipped(modified="2026-12-01T08:00:00", news="out_for_delivery")) == "duplicate"
    assert deliver(woo.shipped(modified="2026-12-01T10:00:00", news="out_for_delivery")) == "used"
    # then
    assert ShipmentEvent.objects.count() == 1
    assert _news_emails() == ["parcel_out_for_delivery"]
    assert "nothing new" in _latest_reason()


def test_news_on_with_the_order_until_delivered_each_email_once(deliver, shop):
    # given: the order completed, in transit
    deliver(woo.ORDER, "order.created")
    deliver(woo.shipped(modified="2026-12-01T08:00:00", news="in_transit"))
    # then: in transit changes only the parcel's status
    assert (Shipment.objects.get().progress, _news_emails()) == ("in_transit", [])
    # when: a failed attempt, then delivered, the order set to TrackShip's own status "delivered"
    deliver(woo.shipped(modified="2026-12-02T09:00:00", news="failure"))
    deliver(woo.shipped("delivered", modified="2026-12-03T09:00:00", news="delivered"))
    # then
    assert list(ShipmentEvent.objects.values_list("status", flat=True)) == [
        "in_transit",
        "attempted_delivery",
        "delivered",
    ]
    assert Shipment.objects.get().progress == "delivered"
    assert _news_emails() == ["parcel_delivered", "parcel_delivery_failed"]


def test_a_dated_status_of_trackships_older_versions_keeps_its_time_in_utc(deliver, shop):
    # given
    deliver(woo.ORDER, "order.created")
    # when: shipment_status's status_date, gmdate('Y-m-d H:i:s')
    news = woo.shipped(modified="2026-12-02T10:00:00", news="delivered", status_date="2026-12-02 09:41:10")
    deliver(news)
    # then
    event = ShipmentEvent.objects.get()
    assert (event.status, event.happened_at) == ("delivered", datetime(2026, 12, 2, 9, 41, 10, tzinfo=UTC))
    assert event.shop_event_id == "trackship:delivered:2026-12-02T09:41:10+00:00"


@pytest.mark.parametrize(
    ("trackship_status", "ours"),
    [("exception", "failure"), ("return_to_sender", "failure"), ("failure", "attempted_delivery")],
)
def test_trackships_failures_are_told_as_a_failed_delivery(deliver, shop, trackship_status, ours):
    deliver(woo.ORDER, "order.created")
    deliver(woo.shipped(modified="2026-12-01T08:00:00", news=trackship_status))
    assert Shipment.objects.get().progress == ours
    assert _news_emails() == ["parcel_delivery_failed"]


@pytest.mark.parametrize("trackship_status", ["pre_transit", "available_for_pickup", "on_hold", "unknown"])
def test_a_status_no_customer_is_told_of_changes_nothing(deliver, shop, trackship_status):
    deliver(woo.ORDER, "order.created")
    assert deliver(woo.shipped(modified="2026-12-01T08:00:00", news=trackship_status)) == "used"
    assert not ShipmentEvent.objects.exists()
    assert Shipment.objects.get().progress == "shipped"


@pytest.mark.parametrize(
    ("status_date", "why"),
    [
        ("soon", "status_date 'soon' is not an ISO 8601 time"),
        ("2099-01-01 00:00:00", "after our clock"),
    ],
)
def test_news_whose_time_cannot_be_taken_is_left_out_with_the_reason_and_the_order_applied(
    deliver, shop, status_date, why
):
    # given
    deliver(woo.ORDER, "order.created")
    # when: the completion carries a status dated wrongly, and a refund
    completed = woo.shipped(modified="2026-12-01T08:00:00", news="delivered", status_date=status_date)
    completed["refunds"] = [{"id": 801, "reason": "One bag arrived torn", "total": "-12.90"}]
    assert deliver(completed) == "used"
    # then
    reason = _latest_reason()
    assert "parcel completed-727: its news (delivered) left out:" in reason
    assert why in reason, reason
    assert (Shipment.objects.get().progress, Order.objects.get().refunds.count()) == ("shipped", 1)
    assert not ShipmentEvent.objects.exists()
    assert _news_emails() == []


def test_news_of_an_order_not_completed_is_left_out_and_applied_once_the_parcel_is(deliver, shop):
    # given: TrackShip tracks an order still processing (no parcel of ours yet)
    deliver(woo.ORDER, "order.created")
    processing = woo.shipped("processing", modified="2026-12-01T08:00:00", news="in_transit")
    assert deliver(processing) == "used"
    assert "its news left out: no delivery recorded the parcel" in _latest_reason()
    # when: completed
    deliver(woo.shipped(modified="2026-12-01T09:00:00", news="in_transit"))
    # then
    assert Shipment.objects.get().progress == "in_transit"
