"""Money that never came in cannot go back: a refund of an order not paid (alone, or with its
cancellation) is a 409 `refund_exceeds_paid` saying so in words, and stores nothing. The order
records when it was paid (`paid_at`), once; a cancellation keeps it."""

import pytest
from django.utils import timezone

from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order, Refund
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

# The order's total is 34.80 EUR (3480 minor units).
TEA_BACK = {"refund_id": "R1", "amount": 1250, "lines": [{"sku": "TEA-GREEN", "quantity": 1}]}
NEVER_PAID = {
    "error": "refund_exceeds_paid",
    "message": "This refund is 12.50 EUR, but this order was never paid: nothing can go back.",
}


@pytest.fixture
def shop_order(client) -> Order:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _post(client, order: Order, change: str, body: dict | None = None):
    return client.post(f"/api/orders/{order.id}/{change}/", body or {}, format="json")


def test_a_refund_of_an_order_never_paid_is_refused_in_words_and_stores_nothing(client, shop_order):
    # when: the order was placed, never paid, and a refund is announced
    response = _post(client, shop_order, "refunds", TEA_BACK)
    # then
    assert response.status_code == 409, response.content
    assert response.json() == NEVER_PAID
    assert not Refund.objects.exists()
    assert not OutboxEvent.objects.filter(event_type="order.refunded").exists()
    assert not Notification.objects.filter(order=shop_order, kind="order_refund").exists()


def test_a_cancellation_with_a_refund_of_an_order_never_paid_is_refused_and_cancels_nothing(
    client, shop_order
):
    # when
    response = _post(client, shop_order, "cancel", {"refund": TEA_BACK})
    # then
    assert response.status_code == 409, response.content
    assert response.json() == NEVER_PAID
    shop_order.refresh_from_db()
    assert (shop_order.status, shop_order.version) == ("created", 1)
    assert not Refund.objects.exists()
    assert not OutboxEvent.objects.filter(event_type="order.cancelled").exists()
    assert not Notification.objects.filter(order=shop_order, kind="order_cancellation").exists()
    # and without a refund, the same order is cancelled
    assert _post(client, shop_order, "cancel").status_code == 200


def test_the_same_order_paid_then_refunded_takes_the_refund(client, shop_order):
    # given
    assert _post(client, shop_order, "pay").status_code == 200
    # when
    response = _post(client, shop_order, "refunds", TEA_BACK)
    # then
    assert response.status_code == 201, response.content
    assert Refund.objects.get().amount_minor == 1250
    assert Notification.objects.filter(order=shop_order, kind="order_refund").count() == 1


def test_a_paid_order_cancelled_with_its_refund_takes_it(client, shop_order):
    assert _post(client, shop_order, "pay").status_code == 200
    response = _post(client, shop_order, "cancel", {"refund": {"refund_id": "C1", "amount": 3480}})
    assert response.status_code == 200, response.content
    assert (Refund.objects.get().amount_minor, Refund.objects.get().in_cancellation) == (3480, True)


def test_paying_records_when_once_and_a_cancellation_keeps_it(client, shop_order):
    # given: an order not paid knows no payment
    assert shop_order.paid_at is None
    before = timezone.now()
    # when: paid, paid again (a retry), then cancelled
    assert _post(client, shop_order, "pay").status_code == 200
    shop_order.refresh_from_db()
    paid_at = shop_order.paid_at
    assert _post(client, shop_order, "pay").status_code == 200
    assert _post(client, shop_order, "cancel").status_code == 200
    # then: the time of the first pay, kept by the second and by the cancellation
    shop_order.refresh_from_db()
    assert paid_at is not None
    assert before <= paid_at <= timezone.now()
    assert (shop_order.status, shop_order.paid_at) == ("cancelled", paid_at)


def test_an_order_cancelled_unpaid_stays_unpaid(client, shop_order):
    assert _post(client, shop_order, "cancel").status_code == 200
    shop_order.refresh_from_db()
    assert (shop_order.status, shop_order.paid_at) == ("cancelled", None)
    # and a refund of it is still refused
    assert _post(client, shop_order, "refunds", TEA_BACK).json() == NEVER_PAID
