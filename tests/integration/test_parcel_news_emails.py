"""A parcel's news through the real worker and the mail simulator: each news email is sent once,
under its own key, never before its parcel's "shipped" email, and skipped when the parcel moved
on before its turn."""

import pytest
from rest_framework.test import APIClient

from notifications.delivery.rules import DELIVERED_SINCE_REASON
from notifications.models import Notification
from orders.models import Order
from tests.shop_order_bodies import shop_order_body
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _client(api_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client


def _post(api_token: str, path: str, body: dict) -> None:
    response = _client(api_token).post(path, body, format="json")
    assert response.status_code == 201, response.content


def _placed_and_confirmed(api_token: str, address: str) -> Order:
    response = _client(api_token).post("/api/orders/", shop_order_body(customer_email=address), format="json")
    assert response.status_code == 201, response.content
    order = Order.objects.get(id=response.json()["id"])
    wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="sent").exists(),
        timeout=30,
        message="the confirmation sent",
    )
    return order


def _news(api_token: str, order: Order, event_id: str, status: str, at: str) -> None:
    _post(
        api_token,
        f"/api/orders/{order.id}/shipments/P1/events/",
        {"event_id": event_id, "status": status, "happened_at": at},
    )


def _finished(order: Order, count: int) -> list[Notification]:
    def finished():
        emails = list(
            Notification.objects.filter(order=order, status__in=Notification.DONE_STATUSES).order_by(
                "status_changed_at"
            )
        )
        return emails if len(emails) == count else None

    return wait_until(finished, timeout=40, message=f"{count} emails of the order finished")


def test_a_parcels_news_follows_its_shipped_email_each_once(api_token, mailsim, start_worker):
    # given: the order confirmed; its parcel's "shipped" email will be held at the provider
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _placed_and_confirmed(api_token, "journey@example.com")
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "journey@", "times": 1})
    # when: the parcel ships and is out for delivery at once, and is delivered later
    _post(api_token, f"/api/orders/{order.id}/shipments/", {"shipment_id": "P1", "carrier": "DHL"})
    _news(api_token, order, "E1", "out_for_delivery", "2026-12-04T08:00:00+01:00")
    emails = _finished(order, 3)
    _news(api_token, order, "E2", "delivered", "2026-12-04T13:05:00+01:00")
    emails = _finished(order, 4)
    # then: the order of the customer's reading, each sent once under its own key
    assert [email.kind for email in emails] == [
        "order_confirmation",
        "order_shipment",
        "parcel_out_for_delivery",
        "parcel_delivered",
    ]
    assert all(email.status == "sent" for email in emails)
    messages = sorted(
        (m for m in mailsim.messages() if m["to"] == ["journey@example.com"]), key=lambda m: m["accepted_at"]
    )
    assert len(messages) == 4
    assert len({m["idempotency_key"] for m in messages}) == 4
    assert messages[2]["subject"].endswith("is out for delivery")
    assert "DHL is bringing a parcel of your order to you today." in messages[2]["text"]
    assert messages[3]["subject"].endswith("has arrived")
    assert "DHL delivered a parcel of your order." in messages[3]["text"]


def test_news_the_parcel_moved_past_before_its_turn_is_skipped(api_token, mailsim, start_worker):
    # given: the parcel's "shipped" email held at the provider while its news arrives
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    order = _placed_and_confirmed(api_token, "moved@example.com")
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "moved@", "times": 1})
    _post(api_token, f"/api/orders/{order.id}/shipments/", {"shipment_id": "P1", "carrier": "DHL"})
    # when: out for delivery, then delivered, both while the "shipped" email is with the provider
    _news(api_token, order, "E1", "out_for_delivery", "2026-12-04T08:00:00+01:00")
    _news(api_token, order, "E2", "delivered", "2026-12-04T13:05:00+01:00")
    emails = {email.kind: email for email in _finished(order, 4)}
    # then: "out for delivery" is skipped as old news, "delivered" is sent after "shipped"
    skipped = emails["parcel_out_for_delivery"]
    assert skipped.status == "skipped"
    assert skipped.last_error == DELIVERED_SINCE_REASON
    assert (emails["order_shipment"].status, emails["parcel_delivered"].status) == ("sent", "sent")
    shipped_at, delivered_at = emails["order_shipment"].sent_at, emails["parcel_delivered"].sent_at
    assert shipped_at is not None
    assert delivered_at is not None
    assert shipped_at < delivered_at
    subjects = [m["subject"] for m in mailsim.messages() if m["to"] == ["moved@example.com"]]
    assert len(subjects) == 3
    assert not any("out for delivery" in subject for subject in subjects)
