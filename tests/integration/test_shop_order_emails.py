"""A shop's order placed through the API and confirmed by a real worker through RabbitMQ and
the mail simulator: the email the customer receives lists what was bought, and it is the
version of the order its event saw, whatever the order became before the first attempt."""

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from notifications.models import Notification
from orders.models import Order, OrderVersion
from tests.shop_order_bodies import shop_order_body
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _place(api_token: str, body: dict) -> Order:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    response = client.post("/api/orders/", body, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _sent(order: Order) -> Notification:
    return wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="sent").first(),
        timeout=30,
        message="the confirmation sent",
    )


def test_the_confirmation_a_customer_receives_lists_what_was_bought(api_token, mailsim, start_worker):
    # given
    start_worker()
    # when
    order = _place(api_token, shop_order_body(customer_email="lines@example.com"))
    # then
    notification = _sent(order)
    assert notification.content_version == 1
    [message] = [m for m in mailsim.messages() if m["to"] == ["lines@example.com"]]
    for expected in (
        "Your order 1001 at",
        "2 × Green tea (TEA-GREEN)",  # noqa: RUF001
        "€12.50 each, tax 7%: €25.00",
        "1 × Mug (MUG-1)",  # noqa: RUF001
        "Shipping (DHL Paket): €4.90",
        "Discount (Welcome): −€5.00",  # noqa: RUF001
        "Total: €34.80",
        "Including taxes of €2.96",
        "Hauptstraße 1\n10115 Berlin\nGermany",
    ):
        assert expected in message["subject"] + "\n" + message["text"], expected
    assert "Green tea" in message["html"]
    assert "Hauptstraße 1" in message["html"]


def test_the_email_shows_the_version_its_event_saw(api_token, mailsim, start_worker):
    # given an order whose confirmation is recorded (version 1) but not yet sent
    order = _place(api_token, shop_order_body(customer_email="versions@example.com"))
    # when the order changes before the first attempt: a new version, as every change writes it
    changed = shop_order_body(customer_email="versions@example.com")
    changed["lines"][0]["name"] = "Black tea"
    with transaction.atomic():
        OrderVersion.objects.create(order=order, number=2, content=changed, total_minor=changed["total"])
        Order.objects.filter(pk=order.pk).update(content_version=2)
    start_worker()
    # then the confirmation shows version 1, the one its event saw
    notification = _sent(order)
    assert notification.content_version == 1
    assert "2 × Green tea (TEA-GREEN)" in notification.email_text  # noqa: RUF001
    assert "Black tea" not in notification.email_text
    assert "Black tea" not in notification.email_html
    [message] = [m for m in mailsim.messages() if m["to"] == ["versions@example.com"]]
    assert message["text"] == notification.email_text


def test_an_order_placed_with_the_short_body_is_confirmed_with_its_amount(api_token, mailsim, start_worker):
    # given
    start_worker()
    # when
    order = _place(api_token, {"customer_email": "short@example.com", "amount": "49.90", "currency": "EUR"})
    # then
    notification = _sent(order)
    assert notification.content_version is None
    assert "Amount: €49.90" in notification.email_text
    assert "What you ordered" not in notification.email_text
