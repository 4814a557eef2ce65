"""POST /api/orders/<id>/shipments/: a parcel is stored with its event and its pending email in
one transaction, idempotent by the shop's shipment id; what does not fit the order is a 409
naming the figures, and stores nothing."""

import uuid

import pytest

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Shipment
from orders.shipments import tracking_url_problem
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

PARCEL = {
    "shipment_id": "1001-1",
    "carrier": "DHL",
    "tracking_number": "00340434161234567890",
    "tracking_url": "https://www.dhl.de/track?piececode=00340434161234567890",
    "lines": [{"sku": "TEA-GREEN", "quantity": 1}],
}


@pytest.fixture
def shop_order(client) -> Order:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _ship(client, order: Order, body: dict):
    return client.post(f"/api/orders/{order.id}/shipments/", body, format="json")


def _nothing_shipped(order: Order) -> bool:
    return (
        not Shipment.objects.filter(order=order).exists()
        and not Notification.objects.filter(order=order, kind="order_shipment").exists()
        and not OutboxEvent.objects.filter(event_type="order.shipped").exists()
    )


def test_a_parcel_is_stored_with_its_event_and_its_pending_email(client, shop_order):
    # when
    response = _ship(client, shop_order, PARCEL)
    # then
    assert response.status_code == 201, response.content
    [shipment] = Shipment.objects.filter(order=shop_order)
    assert (shipment.shop_shipment_id, shipment.carrier, shipment.tracking_number) == (
        "1001-1",
        "DHL",
        "00340434161234567890",
    )
    assert shipment.lines == [{"sku": "TEA-GREEN", "name": "Green tea", "quantity": 1}]
    [event] = OutboxEvent.objects.filter(event_type="order.shipped")
    assert (event.aggregate_type, event.aggregate_id) == ("shipment", str(shipment.id))
    assert event.payload["shipment_id"] == str(shipment.id)
    email = Notification.objects.get(order=shop_order, kind="order_shipment")
    assert (email.status, email.subject_id, email.content_version) == ("pending", shipment.id, 1)
    confirmation = Notification.objects.get(order=shop_order, kind="order_confirmation")
    assert email.idempotency_key != confirmation.idempotency_key
    body = response.json()
    [shown] = body["shipments"]
    assert (shown["id"], shown["shipment_id"], shown["lines"]) == (
        str(shipment.id),
        "1001-1",
        [{"sku": "TEA-GREEN", "name": "Green tea", "quantity": 1}],
    )
    assert {(n["kind"], n["subject_id"]) for n in body["notifications"]} == {
        ("order_confirmation", None),
        ("order_shipment", str(shipment.id)),
    }


def test_each_parcel_is_its_own_email_with_its_own_key(client, shop_order):
    # when
    first = _ship(client, shop_order, PARCEL)
    second = _ship(
        client, shop_order, {**PARCEL, "shipment_id": "1001-2", "lines": [{"sku": "MUG-1", "quantity": 1}]}
    )
    # then
    assert (first.status_code, second.status_code) == (201, 201)
    emails = Notification.objects.filter(order=shop_order, kind="order_shipment")
    assert emails.count() == 2
    assert len({email.idempotency_key for email in emails}) == 2
    assert {email.subject_id for email in emails} == set(Shipment.objects.values_list("id", flat=True))


def test_the_same_parcel_sent_again_is_the_same_shipment_and_nothing_more(client, shop_order):
    # given
    assert _ship(client, shop_order, PARCEL).status_code == 201
    # when
    again = _ship(client, shop_order, PARCEL)
    # then
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert Shipment.objects.count() == 1
    assert OutboxEvent.objects.filter(event_type="order.shipped").count() == 1
    assert Notification.objects.filter(kind="order_shipment").count() == 1


def test_the_same_shipment_id_with_another_body_is_a_conflict(client, shop_order):
    assert _ship(client, shop_order, PARCEL).status_code == 201
    # when
    response = _ship(client, shop_order, {**PARCEL, "tracking_number": "OTHER"})
    # then
    assert response.status_code == 409
    assert response.json()["error"] == "shipment_id_taken"
    assert "1001-1" in response.json()["message"]
    assert Shipment.objects.get().tracking_number == "00340434161234567890"


def test_more_of_a_line_than_is_left_to_ship_is_refused_with_both_figures(client, shop_order):
    # given one of the two green teas has shipped
    assert _ship(client, shop_order, PARCEL).status_code == 201
    # when a second parcel claims two more
    two_more = {**PARCEL, "shipment_id": "1001-2", "lines": [{"sku": "TEA-GREEN", "quantity": 2}]}
    response = _ship(client, shop_order, two_more)
    # then
    assert response.status_code == 409
    assert response.json() == {
        "error": "shipment_exceeds_order",
        "message": "TEA-GREEN: this parcel carries 2, but only 1 of the 2 ordered have not shipped yet.",
    }
    assert Shipment.objects.count() == 1


def test_a_line_the_order_does_not_have_is_refused_and_nothing_is_stored(client, shop_order):
    response = _ship(client, shop_order, {**PARCEL, "lines": [{"sku": "NOPE", "quantity": 1}]})
    assert response.status_code == 409
    assert response.json()["error"] == "shipment_lines_unknown"
    assert "NOPE" in response.json()["message"]
    assert _nothing_shipped(shop_order)


def test_a_parcel_without_lines_carries_everything_not_shipped_yet(client, shop_order):
    # given
    assert _ship(client, shop_order, PARCEL).status_code == 201
    # when
    rest = {key: value for key, value in PARCEL.items() if key != "lines"} | {"shipment_id": "1001-2"}
    response = _ship(client, shop_order, rest)
    # then
    assert response.status_code == 201, response.content
    second = Shipment.objects.get(shop_shipment_id="1001-2")
    assert second.lines == [
        {"sku": "TEA-GREEN", "name": "Green tea", "quantity": 1},
        {"sku": "MUG-1", "name": "Mug", "quantity": 1},
    ]
    # and once everything has shipped, another parcel is refused
    third = _ship(client, shop_order, rest | {"shipment_id": "1001-3"})
    assert third.status_code == 409
    assert third.json()["message"] == "Every line of order 1001 has shipped already."


def test_an_order_placed_with_the_short_body_ships_without_lines(client, order):
    # when
    with_lines = _ship(client, order, PARCEL)
    without = _ship(client, order, {"shipment_id": "S-1", "carrier": "Local courier"})
    # then
    assert with_lines.status_code == 409
    assert "has no lines" in with_lines.json()["message"]
    assert without.status_code == 201, without.content
    assert Shipment.objects.get(order=order).lines == []


def test_a_cancelled_order_ships_nothing(client, shop_order):
    assert client.post(f"/api/orders/{shop_order.id}/cancel/", format="json").status_code == 200
    # when
    response = _ship(client, shop_order, PARCEL)
    # then
    assert response.status_code == 409
    assert response.json() == {
        "error": "order_cancelled",
        "message": "Order 1001 is cancelled: nothing ships.",
    }
    assert _nothing_shipped(shop_order)


def test_another_clients_order_is_not_found_exactly_as_a_missing_one(client, shop_order):
    _, other = api_token_create(name="another shop")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {other}")
    # when
    theirs = _ship(client, shop_order, PARCEL)
    missing = _ship(client, Order(id=uuid.uuid4()), PARCEL)
    # then
    assert (theirs.status_code, missing.status_code) == (404, 404)
    assert _nothing_shipped(shop_order)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"carrier": ""}, "carrier"),
        ({"tracking_url": "http://example.com/track"}, "tracking_url"),
        ({"lines": [{"sku": "TEA-GREEN", "quantity": 0}]}, "lines[0].quantity"),
        ({"lines": [{"sku": "TEA-GREEN", "quantity": 1, "colour": "green"}]}, "lines[0].colour"),
        ({"parcel_weight": 3}, "parcel_weight"),
        ({"shipment_id": "x" * 65}, "shipment_id"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_stores_nothing(client, shop_order, change, field):
    response = _ship(client, shop_order, {**PARCEL, **change})
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"], response.json()
    assert _nothing_shipped(shop_order)


@pytest.mark.parametrize(
    "link",
    [
        "http://evil.example/t",
        "javascript:alert(document.cookie)",
        "HTTPS://evil.example/t",
        "https://-not-a-host-/t",
        "https://www.dhl.de/track?piececode=" + "0" * 500,
    ],
)
def test_a_tracking_link_is_refused_by_the_rule_a_platforms_link_meets(client, shop_order, link):
    # when
    response = _ship(client, shop_order, {**PARCEL, "tracking_url": link})
    # then: 400 with the words of the one rule (orders/shipments.py), which intake applies too
    assert response.status_code == 400, response.content
    assert response.json()["fields"]["tracking_url"] == [tracking_url_problem(link)]
    assert tracking_url_problem(link)
    assert _nothing_shipped(shop_order)


def test_the_admin_shows_the_parcel_on_the_order_and_on_its_email(client, admin_client, shop_order):
    assert _ship(client, shop_order, PARCEL).status_code == 201
    email = Notification.objects.get(order=shop_order, kind="order_shipment")
    # when
    order_page = admin_client.get(f"/admin/orders/order/{shop_order.id}/change/").content.decode()
    email_page = admin_client.get(f"/admin/notifications/notification/{email.pk}/change/").content.decode()
    # then
    assert "1001-1" in order_page
    assert "00340434161234567890" in order_page
    assert "parcel 1001-1 (DHL, tracking 00340434161234567890)" in email_page
