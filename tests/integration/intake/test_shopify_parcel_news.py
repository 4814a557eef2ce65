"""Shopify's `fulfillment_events/create`: a carrier's news of a parcel, posted through the real
webhook view, becomes the parcel's news as the API's does (orders/parcel_progress.py): at most
one email of each kind per parcel, news Shopify sends again changing nothing, news of a parcel
not received yet waiting for it, statuses no customer is told of used without a change."""

import pytest

from intake.models import PlatformDelivery
from notifications.models import Notification
from orders.models import Shipment, ShipmentEvent
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery

pytestmark = pytest.mark.django_db


def _news_emails() -> list[str]:
    return sorted(
        Notification.objects.exclude(kind__in=["order_confirmation", "order_shipment"]).values_list(
            "kind", flat=True
        )
    )


def test_a_parcels_news_becomes_its_email_once():
    # given: the order and its parcel
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")
    # when: out for delivery, Shopify's retry of it (same bytes), then delivered
    used = tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-ofd")
    again = tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-ofd")
    delivered = shopify.fulfillment_event(
        id=944956396, status="delivered", happened_at="2026-12-02T13:40:00+01:00"
    )
    tea_house_deliver("fulfillment_events/create", delivered, "evt-delivered")
    # then
    assert (used, again) == ("used", "duplicate")
    parcel = Shipment.objects.get()
    assert parcel.progress == "delivered"
    assert _news_emails() == ["parcel_delivered", "parcel_out_for_delivery"]
    news = ShipmentEvent.objects.get(shop_event_id="944956395")
    assert (news.status, news.message, news.email_event) == (
        "out_for_delivery",
        "With the courier",
        "parcel.out_for_delivery",
    )
    assert (
        "parcel 4451234001: out for delivery recorded (email parcel.out_for_delivery)"
        in tea_house_delivery("evt-ofd").reason
    )


def test_in_transit_is_an_email_once_only_where_the_setting_is_on(settings):
    # given: the order and its parcel
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")
    in_transit = shopify.fulfillment_event(
        id=944956390, status="in_transit", message="Left the hub", happened_at="2026-12-01T18:00:00+01:00"
    )
    # when: in transit while the setting is off (the default)
    tea_house_deliver("fulfillment_events/create", in_transit, "evt-off")
    # then: shown only
    assert (Shipment.objects.get().progress, _news_emails()) == ("in_transit", [])
    # when: on, in transit from the next hub, Shopify's retry of it, and another hub after it
    settings.PARCEL_IN_TRANSIT_EMAIL = True
    next_hub = shopify.fulfillment_event(
        id=944956391, status="in_transit", happened_at="2026-12-01T22:00:00+01:00"
    )
    used = tea_house_deliver("fulfillment_events/create", next_hub, "evt-hub")
    again = tea_house_deliver("fulfillment_events/create", next_hub, "evt-hub")
    last_hub = shopify.fulfillment_event(
        id=944956392, status="in_transit", happened_at="2026-12-02T03:00:00+01:00"
    )
    tea_house_deliver("fulfillment_events/create", last_hub, "evt-last-hub")
    # then: one email, under the news that first recorded it
    assert (used, again) == ("used", "duplicate")
    assert _news_emails() == ["parcel_in_transit"]
    assert ShipmentEvent.objects.get(shop_event_id="944956391").email_event == "parcel.in_transit"
    assert "in transit recorded (email parcel.in_transit)" in tea_house_delivery("evt-hub").reason
    # when: out for delivery, then the courier brings it back to the depot
    tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-ofd")
    back = shopify.fulfillment_event(
        id=944956393, status="in_transit", happened_at="2026-12-02T15:00:00+01:00"
    )
    tea_house_deliver("fulfillment_events/create", back, "evt-back")
    # then: the status follows the carrier; no second "in transit" after "out for delivery"
    assert Shipment.objects.get().progress == "in_transit"
    assert _news_emails() == ["parcel_in_transit", "parcel_out_for_delivery"]


def test_the_same_news_under_another_delivery_changes_nothing():
    # given: the news applied once
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")
    tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-1")
    # when: the same event id in other bytes (a field Shopify updated)
    resent = shopify.fulfillment_event(updated_at="2026-12-02T08:20:00+01:00")
    assert tea_house_deliver("fulfillment_events/create", resent, "evt-2") == "used"
    # then
    assert ShipmentEvent.objects.count() == 1
    assert _news_emails() == ["parcel_out_for_delivery"]
    assert "nothing new" in tea_house_delivery("evt-2").reason


def test_news_before_its_parcel_waits_and_is_applied_when_the_parcel_arrives():
    # given: the order, without its parcel
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    # when: the news comes first, then the parcel
    assert tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-ofd") == "waiting"
    assert not ShipmentEvent.objects.exists()
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")
    # then
    assert tea_house_delivery("evt-ofd").outcome == PlatformDelivery.Outcome.USED
    assert Shipment.objects.get().progress == "out_for_delivery"
    assert _news_emails() == ["parcel_out_for_delivery"]


def test_news_before_its_order_waits_for_the_order_and_then_its_parcel():
    # given: nothing yet
    tea_house_create()
    # when: the news, then the order listing the parcel
    assert tea_house_deliver("fulfillment_events/create", shopify.FULFILLMENT_EVENT, "evt-ofd") == "waiting"
    with_parcel = shopify.order(updated_at="2026-12-01T09:00:01+01:00", fulfillments=[shopify.FULFILLMENT])
    tea_house_deliver("orders/create", with_parcel, "evt-order")
    # then
    assert tea_house_delivery("evt-ofd").outcome == PlatformDelivery.Outcome.USED
    assert _news_emails() == ["parcel_out_for_delivery"]


@pytest.mark.parametrize(
    "status", ["confirmed", "label_printed", "ready_for_pickup", "delayed", "carrier_picked_up"]
)
def test_a_status_no_customer_is_told_of_is_used_and_changes_nothing(status):
    # given
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")
    # when
    assert (
        tea_house_deliver("fulfillment_events/create", shopify.fulfillment_event(status=status), "evt-x")
        == "used"
    )
    # then
    assert not ShipmentEvent.objects.exists()
    assert Shipment.objects.get().progress == "shipped"
    assert "no customer is told of it" in tea_house_delivery("evt-x").reason


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"happened_at": "2099-01-01T00:00:00+00:00"}, "after our clock"),
        ({"happened_at": "soon", "created_at": "soon"}, "is not an ISO 8601 time"),
        ({"happened_at": "2026-12-02T08:12:00"}, "names no time zone"),
        ({"fulfillment_id": None}, "fulfillment_id"),
        ({"message": "a\u0000b"}, "U+0000"),
    ],
)
def test_news_that_does_not_fit_is_kept_as_could_not_use_with_the_reason(change, why):
    # given
    tea_house_create()
    tea_house_deliver("orders/create", shopify.ORDER, "evt-order")
    tea_house_deliver("fulfillments/create", shopify.FULFILLMENT, "evt-parcel")
    # when
    assert (
        tea_house_deliver("fulfillment_events/create", shopify.fulfillment_event(**change), "evt-x")
        == "could_not_use"
    )
    # then
    assert why in tea_house_delivery("evt-x").reason, tea_house_delivery("evt-x").reason
    assert not ShipmentEvent.objects.exists()
    assert _news_emails() == []
