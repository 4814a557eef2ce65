"""POST /api/orders/<id>/refunds/ and a refund announced with POST /cancel/: stored with its
event and its pending email (or told in the cancellation's), idempotent by the shop's refund
id; more than was paid and not yet refunded is a 409 naming both amounts, and stores nothing.
The orders refunded here are paid first, as a shop's are (test_unpaid_refunds.py: those never
paid)."""

import uuid

import pytest

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Refund
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

# The order's total is 34.80 EUR (3480 minor units).
TEA_BACK = {
    "refund_id": "R1",
    "amount": 1250,
    "lines": [{"sku": "TEA-GREEN", "quantity": 1}],
    "reason": "Damaged",
}


@pytest.fixture
def shop_order(client) -> Order:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


@pytest.fixture
def paid_order(client, shop_order) -> Order:
    """`shop_order`, paid through the API: a shop refunds only what it was paid."""
    assert client.post(f"/api/orders/{shop_order.id}/pay/", format="json").status_code == 200
    shop_order.refresh_from_db()
    return shop_order


def _refund(client, order: Order, body: dict):
    return client.post(f"/api/orders/{order.id}/refunds/", body, format="json")


def _refund_emails(order: Order):
    return Notification.objects.filter(order=order, kind="order_refund")


def test_a_refund_is_stored_with_its_event_and_its_pending_email(client, paid_order):
    # when
    response = _refund(client, paid_order, TEA_BACK)
    # then
    assert response.status_code == 201, response.content
    [refund] = Refund.objects.filter(order=paid_order)
    assert (refund.amount_minor, refund.reason, refund.in_cancellation) == (1250, "Damaged", False)
    assert refund.lines == [{"sku": "TEA-GREEN", "name": "Green tea", "quantity": 1}]
    [event] = OutboxEvent.objects.filter(event_type="order.refunded")
    assert (event.aggregate_type, event.aggregate_id) == ("refund", str(refund.id))
    [email] = _refund_emails(paid_order)
    assert (email.status, email.subject_id) == ("pending", refund.id)
    [shown] = response.json()["refunds"]
    assert (shown["refund_id"], shown["amount"], shown["in_cancellation"]) == ("R1", 1250, False)


def test_the_same_refund_again_is_a_replay_and_another_body_a_conflict(client, paid_order):
    assert _refund(client, paid_order, TEA_BACK).status_code == 201
    # when
    again = _refund(client, paid_order, TEA_BACK)
    other = _refund(client, paid_order, {**TEA_BACK, "amount": 1000})
    # then
    assert (again.status_code, again.headers["Idempotent-Replayed"]) == (200, "true")
    assert other.status_code == 409
    assert other.json()["error"] == "refund_id_taken"
    assert Refund.objects.count() == 1
    assert _refund_emails(paid_order).count() == 1


def test_a_refund_over_what_is_left_is_a_409_naming_both_amounts(client, paid_order):
    # given 12.50 of the 34.80 are refunded
    assert _refund(client, paid_order, TEA_BACK).status_code == 201
    # when 30.00 more are asked
    response = _refund(client, paid_order, {"refund_id": "R2", "amount": 3000})
    # then
    assert response.status_code == 409
    assert response.json() == {
        "error": "refund_exceeds_paid",
        "message": "This refund is 30.00 EUR, but only 22.30 EUR of the 34.80 EUR paid is not refunded yet.",
    }
    assert Refund.objects.count() == 1
    # and exactly what is left is taken
    assert _refund(client, paid_order, {"refund_id": "R2", "amount": 2230}).status_code == 201


def test_another_clients_order_is_not_found_exactly_as_a_missing_one(client, shop_order):
    # given: a token of another client
    _, other = api_token_create(name="another shop")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {other}")
    missing_id = uuid.uuid4()
    # when: it refunds the order, alone and with its cancellation, and an order that does not exist
    theirs = _refund(client, shop_order, TEA_BACK)
    missing = _refund(client, Order(id=missing_id), TEA_BACK)
    cancelled = client.post(f"/api/orders/{shop_order.id}/cancel/", {"refund": TEA_BACK}, format="json")
    # then: the 404 of an unknown id, and nothing changed
    assert (theirs.status_code, missing.status_code, cancelled.status_code) == (404, 404, 404)
    assert theirs.json() == {"error": "not_found", "message": f"No order has the id {shop_order.id}."}
    assert missing.json() == {"error": "not_found", "message": f"No order has the id {missing_id}."}
    assert not Refund.objects.exists()
    assert not _refund_emails(shop_order).exists()
    assert Order.objects.get(pk=shop_order.pk).status == "created"


def test_a_refund_of_more_than_the_order_is_refused_as_over_what_was_paid(client, shop_order):
    # given: the order is paid, 34.80 EUR, nothing refunded yet
    assert client.post(f"/api/orders/{shop_order.id}/pay/", format="json").status_code == 200
    # when: one cent more than the order
    response = _refund(client, shop_order, {"refund_id": "R1", "amount": 3481})
    # then
    assert response.status_code == 409
    assert response.json() == {
        "error": "refund_exceeds_paid",
        "message": "This refund is 34.81 EUR, but only 34.80 EUR of the 34.80 EUR paid is not refunded yet.",
    }
    assert not Refund.objects.exists()
    assert not _refund_emails(shop_order).exists()


def test_refunded_lines_must_be_the_orders_and_not_more_than_were_bought(client, paid_order):
    unknown = _refund(client, paid_order, {**TEA_BACK, "lines": [{"sku": "NOPE", "quantity": 1}]})
    too_many = _refund(client, paid_order, {**TEA_BACK, "lines": [{"sku": "TEA-GREEN", "quantity": 3}]})
    assert (unknown.status_code, unknown.json()["error"]) == (409, "refund_lines_unknown")
    assert (too_many.status_code, too_many.json()["error"]) == (409, "refund_exceeds_order")
    assert "only 2 of the 2 ordered" in too_many.json()["message"]
    assert not Refund.objects.exists()
    assert not _refund_emails(paid_order).exists()


def test_a_refund_answering_a_parcel_that_has_not_reached_us_is_refused_with_the_reason(client, paid_order):
    # when the return's refund comes before its parcel's shipment
    early = _refund(client, paid_order, {**TEA_BACK, "shipment_id": "P1"})
    # then it is refused, nothing is stored, and it is taken once the parcel is known
    assert early.status_code == 409
    assert early.json()["error"] == "shipment_unknown"
    assert "announce the shipment first" in early.json()["message"]
    assert not Refund.objects.exists()
    shipped = client.post(
        f"/api/orders/{paid_order.id}/shipments/", {"shipment_id": "P1", "carrier": "DHL"}, format="json"
    )
    assert shipped.status_code == 201
    assert _refund(client, paid_order, {**TEA_BACK, "shipment_id": "P1"}).status_code == 201
    answered = Refund.objects.get().shipment
    assert answered is not None
    assert answered.shop_shipment_id == "P1"


def test_a_refund_announced_with_the_cancellation_is_told_by_its_email_and_has_none_of_its_own(
    client, paid_order
):
    # when
    response = client.post(
        f"/api/orders/{paid_order.id}/cancel/",
        {"refund": {"refund_id": "C1", "amount": 3480, "reason": "Cancelled at your request"}},
        format="json",
    )
    # then
    assert response.status_code == 200, response.content
    [refund] = Refund.objects.filter(order=paid_order)
    assert (refund.amount_minor, refund.in_cancellation) == (3480, True)
    assert not OutboxEvent.objects.filter(event_type="order.refunded").exists()
    assert not _refund_emails(paid_order).exists()
    assert Notification.objects.filter(order=paid_order, kind="order_cancellation").exists()
    # and the same cancellation again changes nothing
    again = client.post(
        f"/api/orders/{paid_order.id}/cancel/",
        {"refund": {"refund_id": "C1", "amount": 3480, "reason": "Cancelled at your request"}},
        format="json",
    )
    assert again.status_code == 200
    assert Refund.objects.count() == 1


def test_a_cancellation_whose_refund_does_not_fit_changes_nothing(client, paid_order):
    response = client.post(
        f"/api/orders/{paid_order.id}/cancel/", {"refund": {"refund_id": "C1", "amount": 9999}}, format="json"
    )
    assert response.status_code == 409
    assert response.json() == {
        "error": "refund_exceeds_paid",
        "message": "This refund is 99.99 EUR, but only 34.80 EUR of the 34.80 EUR paid is not refunded yet.",
    }
    paid_order.refresh_from_db()
    assert paid_order.status == "paid"
    assert not Refund.objects.exists()
    assert not Notification.objects.filter(order=paid_order, kind="order_cancellation").exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"amount": 0}, "amount"),
        ({"amount": "12.50"}, "amount"),
        ({"reason": "x" * 201}, "reason"),
        ({"lines": [{"sku": "TEA-GREEN"}]}, "lines[0].quantity"),
        ({"currency": "EUR"}, "currency"),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_stores_nothing(client, shop_order, change, field):
    response = _refund(client, shop_order, {**TEA_BACK, **change})
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"], response.json()
    assert not Refund.objects.exists()
