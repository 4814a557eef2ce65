"""POST /api/orders/<id>/shipments/<shipment id>/events/: a carrier's news of a parcel is stored
once, with what it did; "out for delivery", "delivered" and a failed delivery each record at most
one email per parcel, only as the parcel's newest news and never after "delivered"; what does
not fit is refused with the reason and stores nothing."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Shipment, ShipmentEvent
from orders.parcel_progress import AFTER_DELIVERY_NOTE, ALREADY_TOLD_NOTE, OLDER_NOTE, SHOWN_ONLY_NOTE
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

NEWS_EVENTS = ("parcel.out_for_delivery", "parcel.delivered", "parcel.delivery_failed")
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


def _news(client, parcel: Shipment, event_id: str, status: str, minutes: int = 0, **more):
    body = {
        "event_id": event_id,
        "status": status,
        "happened_at": (T0 + timedelta(minutes=minutes)).isoformat(),
    }
    return client.post(
        f"/api/orders/{parcel.order_id}/shipments/{parcel.shop_shipment_id}/events/",
        body | more,
        format="json",
    )


def _emails(parcel: Shipment) -> list[str]:
    return sorted(
        Notification.objects.filter(subject_id=parcel.id)
        .exclude(kind="order_shipment")
        .values_list("kind", flat=True)
    )


def _news_events(parcel: Shipment) -> list[str]:
    return sorted(
        OutboxEvent.objects.filter(event_type__in=NEWS_EVENTS, aggregate_id=str(parcel.id)).values_list(
            "event_type", flat=True
        )
    )


def _progress(parcel: Shipment) -> str:
    return Shipment.objects.get(pk=parcel.pk).progress


def test_out_for_delivery_is_stored_with_its_event_and_its_pending_email(client, parcel):
    # when
    response = _news(client, parcel, "E1", "out_for_delivery", message="With the courier since 07:12")
    # then: the news, the parcel's status, one event about the parcel and its pending email
    assert response.status_code == 201, response.content
    [news] = ShipmentEvent.objects.filter(shipment=parcel)
    assert (news.shop_event_id, news.status, news.became_status, news.email_event, news.note) == (
        "E1",
        "out_for_delivery",
        True,
        "parcel.out_for_delivery",
        "",
    )
    assert _progress(parcel) == "out_for_delivery"
    [event] = OutboxEvent.objects.filter(event_type="parcel.out_for_delivery")
    assert (event.aggregate_type, event.aggregate_id) == ("shipment", str(parcel.id))
    email = Notification.objects.get(kind="parcel_out_for_delivery")
    assert (email.order_id, email.subject_id, email.status) == (parcel.order_id, parcel.id, "pending")
    keys = set(
        Notification.objects.filter(order_id=parcel.order_id).values_list("idempotency_key", flat=True)
    )
    assert len(keys) == 3  # confirmation, shipped, out for delivery: each its own key
    # and the API shows where the parcel stands and what the news did
    [shown] = response.json()["shipments"]
    assert (shown["status"], shown["events"][0]["event_id"], shown["events"][0]["email_event"]) == (
        "out_for_delivery",
        "E1",
        "parcel.out_for_delivery",
    )
    assert shown["events"][0]["message"] == "With the courier since 07:12"


def test_in_transit_changes_the_status_and_sends_nothing(client, parcel):
    # when
    response = _news(client, parcel, "E1", "in_transit")
    # then
    assert response.status_code == 201, response.content
    assert _progress(parcel) == "in_transit"
    assert ShipmentEvent.objects.get(shipment=parcel).note == SHOWN_ONLY_NOTE
    assert _emails(parcel) == []
    assert _news_events(parcel) == []


def test_the_same_news_again_changes_nothing_and_other_content_under_its_id_is_refused(client, parcel):
    # given
    assert _news(client, parcel, "E1", "out_for_delivery").status_code == 201
    # when: sent again as it was, then with another status under the same id
    again = _news(client, parcel, "E1", "out_for_delivery")
    other = _news(client, parcel, "E1", "delivered", minutes=30)
    # then
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert other.status_code == 409
    assert other.json()["error"] == "event_id_taken"
    assert ShipmentEvent.objects.filter(shipment=parcel).count() == 1
    assert _emails(parcel) == ["parcel_out_for_delivery"]
    assert _progress(parcel) == "out_for_delivery"


def test_each_email_at_most_once_per_parcel_whatever_news_repeats(client, parcel):
    # when: out for delivery twice (the courier came back and set out again), two failed attempts
    # of both kinds, then delivered twice under two ids
    statuses = [
        "out_for_delivery",
        "attempted_delivery",
        "out_for_delivery",
        "failure",
        "delivered",
        "delivered",
    ]
    for minute, status in enumerate(statuses):
        assert _news(client, parcel, f"E{minute}", status, minutes=minute).status_code == 201
    # then: one email of each kind, the repeats kept with why they sent none
    assert _emails(parcel) == ["parcel_delivered", "parcel_delivery_failed", "parcel_out_for_delivery"]
    assert _news_events(parcel) == sorted(NEWS_EVENTS)
    notes = dict(ShipmentEvent.objects.filter(shipment=parcel).values_list("shop_event_id", "note"))
    assert notes["E2"] == notes["E3"] == ALREADY_TOLD_NOTE
    assert notes["E5"] == AFTER_DELIVERY_NOTE
    assert _progress(parcel) == "delivered"


def test_nothing_after_delivered_and_late_news_never_takes_the_parcel_back(client, parcel):
    # given: out for delivery at 10:00 arrives first
    assert _news(client, parcel, "E-ofd", "out_for_delivery", minutes=600).status_code == 201
    # when: an attempt at 09:00 (older, arriving late), then delivered, then news after delivery
    late = _news(client, parcel, "E-early", "attempted_delivery", minutes=540)
    delivered = _news(client, parcel, "E-del", "delivered", minutes=660)
    after = _news(client, parcel, "E-after", "failure", minutes=720)
    # then: every piece kept; only out for delivery and delivered became emails
    assert (late.status_code, delivered.status_code, after.status_code) == (201, 201, 201)
    events = {e.shop_event_id: e for e in ShipmentEvent.objects.filter(shipment=parcel)}
    assert (events["E-early"].became_status, events["E-early"].note) == (False, OLDER_NOTE)
    assert (events["E-after"].became_status, events["E-after"].note) == (False, AFTER_DELIVERY_NOTE)
    assert _emails(parcel) == ["parcel_delivered", "parcel_out_for_delivery"]
    shipment = Shipment.objects.get(pk=parcel.pk)
    assert (shipment.progress, shipment.progress_at) == ("delivered", T0 + timedelta(minutes=660))


def test_delivered_is_the_end_even_when_the_carrier_dates_it_earlier(client, parcel):
    # given: a failure at 12:00
    assert _news(client, parcel, "E1", "failure", minutes=720).status_code == 201
    # when: delivered, dated 11:00 by a carrier's clock
    assert _news(client, parcel, "E2", "delivered", minutes=660).status_code == 201
    # then
    assert _progress(parcel) == "delivered"
    assert _emails(parcel) == ["parcel_delivered", "parcel_delivery_failed"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"status": "teleported"}, "status"),
        ({"status": "shipped"}, "status"),  # the status before any news, never reported
        ({"happened_at": "yesterday"}, "happened_at"),
        ({"happened_at": (timezone.now() + timedelta(days=400)).isoformat()}, "happened_at"),
        ({"event_id": ""}, "event_id"),
        ({"event_id": "E" * 65}, "event_id"),
        ({"event_id": "E\u202e1"}, "event_id"),  # an invisible character
        ({"message": "m" * 201}, "message"),
        ({"carrier": "DHL"}, "carrier"),  # not a field of this body
    ],
)
def test_a_body_that_does_not_fit_is_a_400_naming_the_field_and_stores_nothing(client, parcel, change, field):
    # when
    body = {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()} | change
    response = client.post(
        f"/api/orders/{parcel.order_id}/shipments/{parcel.shop_shipment_id}/events/", body, format="json"
    )
    # then
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"], response.json()
    assert not ShipmentEvent.objects.exists()
    assert _emails(parcel) == []
    assert _progress(parcel) == "shipped"


def test_a_parcel_the_order_does_not_have_is_refused_by_name(client, parcel):
    # when: another shipment id of the same order
    response = client.post(
        f"/api/orders/{parcel.order_id}/shipments/1001-9/events/",
        {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()},
        format="json",
    )
    # then
    assert response.status_code == 409
    assert response.json()["error"] == "shipment_not_found"
    assert "1001-9" in response.json()["message"]
    assert not ShipmentEvent.objects.exists()


def test_another_clients_parcel_is_not_found_exactly_as_a_missing_order(client, parcel):
    # given: a token of another client
    _, other = api_token_create(name="another shop")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {other}")
    missing_id = uuid.uuid4()
    # when: it reports the parcel delivered, and a parcel of an order that does not exist
    theirs = _news(client, parcel, "E1", "delivered")
    missing = client.post(
        f"/api/orders/{missing_id}/shipments/1001-1/events/",
        {"event_id": "E1", "status": "delivered", "happened_at": T0.isoformat()},
        format="json",
    )
    # then: the 404 of an unknown id, and nothing changed
    assert (theirs.status_code, missing.status_code) == (404, 404)
    assert theirs.json() == {"error": "not_found", "message": f"No order has the id {parcel.order_id}."}
    assert missing.json() == {"error": "not_found", "message": f"No order has the id {missing_id}."}
    assert not ShipmentEvent.objects.exists()
    assert _emails(parcel) == []


def test_without_a_token_nothing_is_reached(client, parcel):
    # given
    client.credentials()
    # when
    response = _news(client, parcel, "E1", "delivered")
    # then
    assert response.status_code == 401
    assert not ShipmentEvent.objects.exists()


def test_the_admin_shows_where_the_parcel_stands_and_each_news_escaped(client, admin_client, parcel):
    # given: news whose carrier's words hold markup
    assert (
        _news(client, parcel, "E1", "out_for_delivery", message="<script>alert(1)</script>").status_code
        == 201
    )
    assert _news(client, parcel, "E2", "in_transit", minutes=-30).status_code == 201
    # when
    page = admin_client.get(f"/admin/orders/order/{parcel.order_id}/change/").content.decode()
    # then: the status, each news with what it did, the words as text, never as markup
    assert "out for delivery" in page
    assert "email parcel.out_for_delivery" in page
    assert OLDER_NOTE in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
