"""Copies of one delivery, and two deliveries of one new order, arriving at the same moment on
separate connections (as two web processes take them): one order, one email, every delivery
answered."""

import threading

import pytest
from django.db import connection

from intake.models import PlatformDelivery
from intake.receive import delivery_receive
from messaging.models import OutboxEvent
from notifications.models import Notification
from orders.models import Order
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create

# The run's broker: each committed delivery publishes its events on commit, as the web does (a
# failed publish would pause this process's on-commit path for the tests after this one).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def shop() -> Shop:
    return tea_house_create()


def _at_once(shop: Shop, deliveries: list[tuple[str, str]]) -> list[str]:
    """Each (event key, topic) received in its own thread and connection, released together."""
    body = shopify.body_of(shopify.ORDER).decode()
    start = threading.Barrier(len(deliveries))
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def receive(event_key: str, topic: str) -> None:
        try:
            start.wait(timeout=10)
            received = delivery_receive(shop=shop, event_key=event_key, webhook_id="", topic=topic, body=body)
            outcomes.append("duplicate" if received.duplicate else received.delivery.outcome)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=receive, args=delivery) for delivery in deliveries]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    return sorted(outcomes)


def test_four_copies_of_one_event_at_once_store_one_delivery_and_one_order(shop):
    # when
    outcomes = _at_once(shop, [("evt-1", "orders/create")] * 4)
    # then
    assert outcomes == ["duplicate", "duplicate", "duplicate", "used"]
    assert PlatformDelivery.objects.count() == 1
    assert Order.objects.count() == 1
    assert OutboxEvent.objects.filter(event_type="order.created").count() == 1
    assert Notification.objects.filter(kind="order_confirmation").count() == 1


def test_two_events_of_one_new_order_at_once_create_it_once(shop):
    # when: orders/create and orders/paid of the same new order, each the whole order
    outcomes = _at_once(shop, [("evt-create", "orders/create"), ("evt-paid", "orders/paid")])
    # then
    assert outcomes == ["used", "used"]
    assert PlatformDelivery.objects.count() == 2
    [order] = Order.objects.all()
    assert Notification.objects.filter(order=order, kind="order_confirmation").count() == 1
    reasons = sorted(PlatformDelivery.objects.values_list("reason", flat=True))
    assert reasons == ["nothing new: everything it says was applied before", "order created; paid"]
