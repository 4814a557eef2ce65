"""POST /api/orders/<id>/shipments/<shipment id>/events/ with "in_transit": only shown while
settings PARCEL_IN_TRANSIT_EMAIL is off (the default); on, one email per parcel, recorded with
its event in the news's transaction, never twice, never for late news, never after "delivered",
and never once the customer was sent news of a later step."""

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Shipment, ShipmentEvent
from orders.parcel_progress import (
    AFTER_DELIVERY_NOTE,
    ALREADY_TOLD_NOTE,
    LATER_STEP_TOLD_NOTE,
    OLDER_NOTE,
    SHOWN_ONLY_NOTE,
)
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

T0 = timezone.now() - timedelta(days=1)


@pytest.fixture
def parcel(client) -> Shipment:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    order = Order.objects.get(id=response.json()["id"])
    shipped = client.post(
        f"/api/orders/{order.id}/shipments/",
        {"shipment_id": "1001-1", "carrier": "DHL", "tracking_number": "0034"},
        format="json",
    )
    assert shipped.status_code == 201, shipped.content
    return Shipment.objects.get(order=order)


@pytest.fixture
def in_transit_email_on(settings):
    settings.PARCEL_IN_TRANSIT_EMAIL = True


def _news(client, parcel: Shipment, event_id: str, status: str, minutes: int = 0):
    body = {
        "event_id": event_id,
        "status": status,
        "happened_at": (T0 + timedelta(minutes=minutes)).isoformat(),
    }
    response = client.post(
        f"/api/orders/{parcel.order_id}/shipments/{parcel.shop_shipment_id}/events/", body, format="json"
    )
    assert response.status_code in (200, 201), response.content
    return response


def _news_emails(parcel: Shipment) -> list[str]:
    return sorted(
        Notification.objects.filter(subject_id=parcel.id)
        .exclude(kind="order_shipment")
        .values_list("kind", flat=True)
    )


def _notes(parcel: Shipment) -> dict[str, str]:
    return dict(ShipmentEvent.objects.filter(shipment=parcel).values_list("shop_event_id", "note"))


def test_off_in_transit_is_shown_and_records_no_email(client, parcel, settings):
    # given: the default
    assert settings.PARCEL_IN_TRANSIT_EMAIL is False
    # when
    _news(client, parcel, "E1", "in_transit")
    # then
    assert _notes(parcel) == {"E1": SHOWN_ONLY_NOTE}
    assert _news_emails(parcel) == []
    assert not OutboxEvent.objects.filter(event_type="parcel.in_transit").exists()


@pytest.mark.usefixtures("in_transit_email_on")
def test_on_the_first_in_transit_records_its_event_and_its_pending_email(client, parcel):
    # when
    response = _news(client, parcel, "E1", "in_transit")
    # then: the news, the parcel's status, one event about the parcel and its pending email
    [news] = ShipmentEvent.objects.filter(shipment=parcel)
    assert (news.became_status, news.email_event, news.note) == (True, "parcel.in_transit", "")
    assert Shipment.objects.get(pk=parcel.pk).progress == "in_transit"
    [event] = OutboxEvent.objects.filter(event_type="parcel.in_transit")
    assert (event.aggregate_type, event.aggregate_id) == ("shipment", str(parcel.id))
    email = Notification.objects.get(kind="parcel_in_transit")
    assert (email.order_id, email.subject_id, email.status) == (parcel.order_id, parcel.id, "pending")
    [shown] = response.json()["shipments"]
    assert (shown["status"], shown["events"][0]["email_event"]) == ("in_transit", "parcel.in_transit")


@pytest.mark.usefixtures("in_transit_email_on")
def test_on_repeated_late_and_later_in_transit_news_records_no_second_email(client, parcel):
    # when: in transit, a resend of it, another depot, late news, then the rest of the journey
    # and in transit after it (back at the depot after a failed attempt), and after delivery
    _news(client, parcel, "E1", "in_transit", minutes=60)
    replayed = _news(client, parcel, "E1", "in_transit", minutes=60)
    _news(client, parcel, "E2", "in_transit", minutes=120)
    _news(client, parcel, "E3", "in_transit", minutes=30)
    _news(client, parcel, "E4", "out_for_delivery", minutes=180)
    _news(client, parcel, "E5", "attempted_delivery", minutes=240)
    _news(client, parcel, "E6", "in_transit", minutes=300)
    _news(client, parcel, "E7", "delivered", minutes=360)
    _news(client, parcel, "E8", "in_transit", minutes=420)
    # then: one email of each kind, each repeat kept with why it sent none
    assert replayed.status_code == 200
    assert _news_emails(parcel) == [
        "parcel_delivered",
        "parcel_delivery_failed",
        "parcel_in_transit",
        "parcel_out_for_delivery",
    ]
    assert OutboxEvent.objects.filter(event_type="parcel.in_transit").count() == 1
    notes = _notes(parcel)
    assert notes["E2"] == ALREADY_TOLD_NOTE
    assert notes["E3"] == OLDER_NOTE
    assert notes["E6"] == ALREADY_TOLD_NOTE  # (and a later step was told: either way, none)
    assert notes["E8"] == AFTER_DELIVERY_NOTE
    # the carrier's time orders the status: back in transit, then delivered
    assert ShipmentEvent.objects.get(shipment=parcel, shop_event_id="E6").became_status


@pytest.mark.usefixtures("in_transit_email_on")
def test_on_in_transit_after_out_for_delivery_is_no_email_though_it_becomes_the_status(client, parcel):
    # given: the parcel's first news is "out for delivery" (the carrier told nothing before)
    _news(client, parcel, "E1", "out_for_delivery", minutes=60)
    # when: the courier brings it back to the depot
    _news(client, parcel, "E2", "in_transit", minutes=120)
    # then
    assert Shipment.objects.get(pk=parcel.pk).progress == "in_transit"
    assert _notes(parcel)["E2"] == LATER_STEP_TOLD_NOTE
    assert _news_emails(parcel) == ["parcel_out_for_delivery"]


def test_news_kept_while_off_keeps_what_it_did_when_the_setting_is_turned_on(client, parcel, settings):
    # given: in transit while off
    _news(client, parcel, "E1", "in_transit", minutes=60)
    # when: the shop turns the email on; the same news is resent, then news from another depot
    settings.PARCEL_IN_TRANSIT_EMAIL = True
    replayed = _news(client, parcel, "E1", "in_transit", minutes=60)
    _news(client, parcel, "E2", "in_transit", minutes=120)
    # then: the resend is the same answer; the next in transit is the parcel's first email of it
    assert replayed.status_code == 200
    assert _notes(parcel) == {"E1": SHOWN_ONLY_NOTE, "E2": ""}
    assert _news_emails(parcel) == ["parcel_in_transit"]


@pytest.mark.usefixtures("in_transit_email_on")
def test_the_admin_shows_the_in_transit_email_of_the_news(client, admin_client, parcel):
    # given
    _news(client, parcel, "E1", "in_transit")
    # when
    page = admin_client.get(f"/admin/orders/order/{parcel.order_id}/change/").content.decode()
    # then
    assert "email parcel.in_transit" in page
