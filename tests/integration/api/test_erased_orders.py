"""A parcel, or a refund naming lines, for an order whose content was erased (its customer's
erasure, or the end of its retention period): what it bought is no longer known, so the API
answers 409 `order_erased` saying so, as for any order that cannot take it, and stores
nothing. A refund naming no lines needs none of it and is still recorded (the shop's books)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from messaging.models import OutboxEvent
from messaging.retention import retention_run
from notifications.models import Notification
from orders.models import Order, Refund, Shipment
from privacy.erasure import customer_erase
from privacy.models import Erasure
from tests.shop_order_bodies import SHOP_ORDER

pytestmark = pytest.mark.django_db

PARCEL = {"shipment_id": "1001-1", "carrier": "DHL", "lines": [{"sku": "TEA-GREEN", "quantity": 1}]}
ALL_LEFT = {"shipment_id": "1001-2", "carrier": "DHL"}  # no lines: everything not shipped yet
TEA_BACK = {"refund_id": "R1", "amount": 1250, "lines": [{"sku": "TEA-GREEN", "quantity": 1}]}


def _erased_at_the_customers_request(order: Order) -> None:
    customer_erase(address=order.customer_email, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")


def _erased_at_the_end_of_its_retention(order: Order) -> None:
    """Placed longer ago than the retention period, its emails all sent: the hourly job erases it."""
    then = timezone.now() - timedelta(days=settings.ORDER_PERSONAL_DATA_RETENTION_DAYS + 1)
    Order.objects.filter(pk=order.pk).update(created_at=then)
    Notification.objects.filter(order=order).update(status=Notification.Status.SENT)
    retention_run()


@pytest.fixture(
    params=[_erased_at_the_customers_request, _erased_at_the_end_of_its_retention],
    ids=["at the customer's request", "at the end of its retention"],
)
def erased_order(client, request) -> Order:
    """The shop's order 1001, placed and paid through the API, then erased one way or the other."""
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    order = Order.objects.get(id=response.json()["id"])
    assert client.post(f"/api/orders/{order.id}/pay/", format="json").status_code == 200
    request.param(order)
    order.refresh_from_db()
    assert order.erased_at is not None
    return order


def _assert_refused_as_erased(response) -> None:
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["error"] == "order_erased"
    assert body["message"].startswith("What order 1001 bought was erased with its customer's personal data")


def test_a_parcel_for_an_erased_order_is_a_409_that_says_so_and_stores_nothing(client, erased_order):
    # when: a parcel naming a line, and one naming none (everything not shipped yet)
    named = client.post(f"/api/orders/{erased_order.id}/shipments/", PARCEL, format="json")
    everything = client.post(f"/api/orders/{erased_order.id}/shipments/", ALL_LEFT, format="json")
    # then
    _assert_refused_as_erased(named)
    _assert_refused_as_erased(everything)
    assert not Shipment.objects.exists()
    assert not OutboxEvent.objects.filter(event_type="order.shipped").exists()


def test_a_refund_naming_lines_of_an_erased_order_is_a_409_one_of_money_only_is_taken(client, erased_order):
    # when
    with_lines = client.post(f"/api/orders/{erased_order.id}/refunds/", TEA_BACK, format="json")
    # then
    _assert_refused_as_erased(with_lines)
    assert not Refund.objects.exists()
    # and the same money without lines is recorded: it needs nothing that was erased
    money_only = {"refund_id": "R1", "amount": 1250}
    response = client.post(f"/api/orders/{erased_order.id}/refunds/", money_only, format="json")
    assert response.status_code == 201, response.content
    assert Refund.objects.get().lines == []


def test_a_cancellation_with_a_refund_naming_lines_of_an_erased_order_changes_nothing(client, erased_order):
    # when
    response = client.post(f"/api/orders/{erased_order.id}/cancel/", {"refund": TEA_BACK}, format="json")
    # then
    _assert_refused_as_erased(response)
    assert Order.objects.get(pk=erased_order.pk).status == erased_order.status
    assert not Refund.objects.exists()
