"""A parcel's "in transit" email (settings PARCEL_IN_TRANSIT_EMAIL on) through the real worker
and the mail simulator: sent once, under its own key, never before its parcel's "shipped" email,
and skipped when the parcel moved on before its turn (delivered, or a later step's email
recorded: the broker keeps no order between the two, and "in transit" after "out for delivery"
reads as a step back)."""

import pytest
from rest_framework.test import APIClient

from notifications.delivery.rules import DELIVERED_SINCE_REASON, LATER_STEP_SINCE_REASON
from notifications.models import Notification
from orders.models import Order
from tests.shop_order_bodies import shop_order_body
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture(autouse=True)
def in_transit_email_on(settings):
    # the news is recorded here, by the API; the worker is started with the same setting
    settings.PARCEL_IN_TRANSIT_EMAIL = True


def _client(api_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return client


def _post(api_token: str, path: str, body: dict) -> None:
    response = _client(api_token).post(path, body, format="json")
    assert response.status_code == 201, response.content


def _placed_and_shipped(api_token: str, mailsim, address: str) -> Order:
    """The order confirmed, then its parcel P1 shipped, its "shipped" email held at the provider
    for 3 s: what comes next arrives while that email is on its way."""
    response = _client(api_token).post("/api/orders/", shop_order_body(customer_email=address), format="json")
    assert response.status_code == 201, response.content
    order = Order.objects.get(id=response.json()["id"])
    wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="sent").exists(),
        timeout=30,
        message="the confirmation sent",
    )
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": address.split("@")[0] + "@", "times": 1})
    _post(api_token, f"/api/orders/{order.id}/shipments/", {"shipment_id": "P1", "carrier": "DHL"})
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


def _subjects(mailsim, address: str) -> list[str]:
    messages = sorted((m for m in mailsim.messages() if m["to"] == [address]), key=lambda m: m["accepted_at"])
    return [m["subject"] for m in messages]


def test_in_transit_follows_its_shipped_email_once_and_the_journey_after_it(api_token, mailsim, start_worker):
    # given
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1", PARCEL_IN_TRANSIT_EMAIL="true")
    order = _placed_and_shipped(api_token, mailsim, "transit@example.com")
    # when: in transit at once (its "shipped" email still with the provider), then another hub
    _news(api_token, order, "E1", "in_transit", "2026-12-03T18:00:00+01:00")
    _news(api_token, order, "E2", "in_transit", "2026-12-03T23:00:00+01:00")
    emails = _finished(order, 3)
    # and the rest of the journey, each step after the email of the one before
    _news(api_token, order, "E3", "out_for_delivery", "2026-12-04T08:00:00+01:00")
    emails = _finished(order, 4)
    _news(api_token, order, "E4", "delivered", "2026-12-04T13:05:00+01:00")
    emails = _finished(order, 5)
    # then: the order of the customer's reading, each sent once under its own key
    assert [email.kind for email in emails] == [
        "order_confirmation",
        "order_shipment",
        "parcel_in_transit",
        "parcel_out_for_delivery",
        "parcel_delivered",
    ]
    assert all(email.status == "sent" for email in emails)
    shipped_at, in_transit_at = emails[1].sent_at, emails[2].sent_at
    assert shipped_at is not None
    assert in_transit_at is not None
    assert shipped_at < in_transit_at
    messages = sorted(
        (m for m in mailsim.messages() if m["to"] == ["transit@example.com"]), key=lambda m: m["accepted_at"]
    )
    assert len(messages) == 5
    assert len({m["idempotency_key"] for m in messages}) == 5
    assert messages[2]["subject"].endswith("is in transit")
    assert "DHL has a parcel of your order and is carrying it to you." in messages[2]["text"]


@pytest.mark.parametrize(
    ("later", "reason"),
    [("out_for_delivery", LATER_STEP_SINCE_REASON), ("delivered", DELIVERED_SINCE_REASON)],
)
def test_in_transit_the_parcel_moved_past_before_its_turn_is_skipped(
    api_token, mailsim, start_worker, later, reason
):
    # given
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1", PARCEL_IN_TRANSIT_EMAIL="true")
    address = f"moved-{later.replace('_', '-')}@example.com"
    order = _placed_and_shipped(api_token, mailsim, address)
    # when: in transit, then a later step, both while the "shipped" email is with the provider
    _news(api_token, order, "E1", "in_transit", "2026-12-03T18:00:00+01:00")
    _news(api_token, order, "E2", later, "2026-12-04T08:00:00+01:00")
    emails = {email.kind: email for email in _finished(order, 4)}
    # then: "in transit" is skipped as old news; the later step is sent after "shipped"
    skipped = emails["parcel_in_transit"]
    assert (skipped.status, skipped.last_error) == ("skipped", reason)
    told = emails[f"parcel_{later}"]
    assert (emails["order_shipment"].status, told.status) == ("sent", "sent")
    shipped_at, told_at = emails["order_shipment"].sent_at, told.sent_at
    assert shipped_at is not None
    assert told_at is not None
    assert shipped_at < told_at
    subjects = _subjects(mailsim, address)
    assert len(subjects) == 3
    assert not any("in transit" in subject for subject in subjects)
