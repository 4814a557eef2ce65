"""A platform's parcel or refund with lines for an order whose content was erased (its
customer's erasure, or the end of its retention period), posted through the real webhook view:
answered 2xx and kept as "could not use" with the reason, as any delivery the order cannot take,
and nothing of it is applied."""

import copy
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
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver, tea_house_delivery

pytestmark = pytest.mark.django_db

ERASED = "What order #1001 bought was erased with its customer's personal data"


def _erased_at_the_customers_request(order: Order) -> None:
    customer_erase(address=order.customer_email, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")


def _erased_at_the_end_of_its_retention(order: Order) -> None:
    then = timezone.now() - timedelta(days=settings.ORDER_PERSONAL_DATA_RETENTION_DAYS + 1)
    Order.objects.filter(pk=order.pk).update(created_at=then)
    Notification.objects.filter(order=order).update(status=Notification.Status.SENT)
    retention_run()


@pytest.fixture(
    params=[_erased_at_the_customers_request, _erased_at_the_end_of_its_retention],
    ids=["at the customer's request", "at the end of its retention"],
)
def erased_order(request) -> Order:
    """Tea House's Shopify order #1001, received through its webhook, then erased."""
    tea_house_create()
    assert tea_house_deliver("orders/create", shopify.ORDER, "evt-order") == "used"
    order = Order.objects.get()
    request.param(order)
    order.refresh_from_db()
    assert order.erased_at is not None
    return order


def _parcel_in_the_order() -> dict:
    """The same fulfillment, inside the order as orders/updated lists it."""
    return shopify.order(updated_at="2026-12-01T09:00:01+01:00", fulfillments=[shopify.FULFILLMENT])


@pytest.mark.parametrize(
    ("topic", "payload"),
    [
        ("fulfillments/create", shopify.FULFILLMENT),
        ("refunds/create", shopify.REFUND),
        ("orders/updated", _parcel_in_the_order()),
    ],
    ids=["a parcel", "a refund with lines", "the order with a new parcel"],
)
def test_a_delivery_the_erased_order_cannot_take_is_kept_with_the_reason(erased_order, topic, payload):
    events_before = OutboxEvent.objects.count()
    # when
    detail = tea_house_deliver(topic, copy.deepcopy(payload), "evt-late")
    # then: answered 2xx, kept with its reason, and nothing of it applied
    assert detail == "could_not_use"
    delivery = tea_house_delivery("evt-late")
    assert (delivery.outcome, delivery.topic) == ("could_not_use", topic)
    assert delivery.reason.startswith(ERASED), delivery.reason
    assert not Shipment.objects.exists()
    assert not Refund.objects.exists()
    assert OutboxEvent.objects.count() == events_before
