"""Paying and cancelling an order, the events they write, and the email rules that follow."""

import uuid

import pytest

from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import InFlightError
from messaging.models import OutboxEvent
from messaging.registry import event_type_get
from notifications.content.context import order_number
from notifications.content.snapshot import snapshot_outbound
from notifications.delivery.outcomes import OutcomeToRecord, notification_record_outcomes
from notifications.models import Notification
from notifications.providers.catalogue import mail_provider
from orders.changes import OrderChangeConflict, order_cancel, order_pay
from orders.events import ORDER_CREATED
from orders.models import DailySales, Order
from tests.factories import confirmation_claimed

pytestmark = pytest.mark.django_db

DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)


def _event(order: Order, event_type: str) -> dict:
    return OutboxEvent.objects.get(aggregate_id=str(order.id), event_type=event_type).payload


def _handle(order: Order, event_type: str) -> str:
    return event_dispatch(raw_envelope=_event(order, event_type), delivery=DELIVERY)


def _statuses(order: Order) -> dict[str, str]:
    return dict(Notification.objects.filter(order=order).values_list("kind", "status"))


# --- the API --------------------------------------------------------------------------------


def test_paying_changes_the_status_bumps_the_version_and_writes_order_paid(client, order):
    response = client.post(f"/api/orders/{order.id}/pay/", {"version": 1}, format="json")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["version"]) == ("paid", 2)
    assert _event(order, "order.paid")["order_id"] == str(order.id)


def test_cancelling_writes_order_cancelled_and_a_pending_cancellation_email(client, order):
    response = client.post(f"/api/orders/{order.id}/cancel/", format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "cancelled"
    assert {(n["kind"], n["status"]) for n in body["notifications"]} == {
        ("order_confirmation", "pending"),
        ("order_cancellation", "pending"),
    }
    assert _event(order, "order.cancelled")


def test_a_repeated_change_is_answered_with_the_order_and_writes_nothing_new(client, order):
    client.post(f"/api/orders/{order.id}/pay/", format="json")
    again = client.post(f"/api/orders/{order.id}/pay/", format="json")
    assert again.status_code == 200
    assert again.json()["version"] == 2
    assert OutboxEvent.objects.filter(event_type="order.paid").count() == 1


def test_a_change_against_a_stale_version_is_a_409_and_changes_nothing(client, order):
    client.post(f"/api/orders/{order.id}/pay/", format="json")
    response = client.post(f"/api/orders/{order.id}/cancel/", {"version": 1}, format="json")
    assert response.status_code == 409
    assert "version 2, not 1" in response.json()["message"]
    assert Order.objects.get(pk=order.pk).status == "paid"


def test_a_cancelled_order_cannot_be_paid(client, order):
    client.post(f"/api/orders/{order.id}/cancel/", format="json")
    response = client.post(f"/api/orders/{order.id}/pay/", format="json")
    assert response.status_code == 409
    assert response.json()["message"] == "A cancelled order cannot be paid."


def test_changing_an_unknown_order_is_a_404_and_a_bad_version_a_400(client):
    assert client.post(f"/api/orders/{uuid.uuid4()}/pay/", format="json").status_code == 404
    order_id = client.post(
        "/api/orders/",
        {"customer_email": "a@example.com", "amount": "1.00", "currency": "EUR"},
        format="json",
    ).json()["id"]
    response = client.post(f"/api/orders/{order_id}/cancel/", {"version": "two"}, format="json")
    assert response.status_code == 400
    assert "version" in response.json()["fields"]


def test_the_service_refuses_a_change_the_state_does_not_allow(order):
    order_cancel(order_id=order.id, api_token=order.api_token)
    with pytest.raises(OrderChangeConflict):
        order_pay(order_id=order.id, api_token=order.api_token)


# --- the rules, one handler call at a time (real simulator) ---------------------------------


def test_cancelled_before_its_confirmation_went_out_the_customer_gets_only_the_cancellation(order, mailsim):
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _handle(order, "order.created") == "skipped"
    assert _handle(order, "order.cancelled") == "sent"
    assert _statuses(order) == {"order_confirmation": "skipped", "order_cancellation": "sent"}
    assert Notification.objects.get(order=order, kind="order_confirmation").last_error.startswith(
        "The order was cancelled before its confirmation"
    )
    assert [m["subject"] for m in mailsim.messages()] == [
        f"Your order {order_number(order)} at Example Shop is cancelled"
    ]


def test_the_cancellation_event_handled_first_gives_the_same_emails(order, mailsim):
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _handle(order, "order.cancelled") == "sent"
    assert _handle(order, "order.created") == "skipped"
    assert _statuses(order) == {"order_confirmation": "skipped", "order_cancellation": "sent"}
    assert len(mailsim.messages()) == 1


def test_cancelled_after_the_confirmation_the_customer_gets_both_in_that_order(order, mailsim):
    assert _handle(order, "order.created") == "sent"
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _handle(order, "order.cancelled") == "sent"
    subjects = [m["subject"] for m in mailsim.messages()]
    assert [subject.rsplit(" ", 1)[-1] for subject in subjects] == ["confirmed", "cancelled"]


def test_cancelled_while_the_confirmation_is_being_sent_the_cancellation_waits_for_it(order, mailsim):
    # given a confirmation in the middle of its provider call
    claim = confirmation_claimed(order)
    order_cancel(order_id=order.id, api_token=order.api_token)
    # when the cancellation's turn comes, it waits
    with pytest.raises(InFlightError, match="confirmation is being sent"):
        _handle(order, "order.cancelled")
    # and once the confirmation is done, it goes out
    email_result = mail_provider().send(
        snapshot_outbound(claim.notification, to=order.customer_email, event_id="e")
    )
    outcome = OutcomeToRecord(
        claim=claim,
        result=email_result,
        event_type=event_type_get(ORDER_CREATED),
        duration_ms=1,
        final_attempt=False,
    )
    assert notification_record_outcomes([outcome], provider=mail_provider()) == ["sent"]
    assert _handle(order, "order.cancelled") == "sent"
    assert _statuses(order) == {"order_confirmation": "sent", "order_cancellation": "sent"}


# --- the at-least-once analytics event -------------------------------------------------------


def test_a_paid_order_is_counted_and_a_redelivery_counts_again_as_documented(order):
    order_pay(order_id=order.id, api_token=order.api_token)
    assert _handle(order, "order.paid") == "counted"
    assert _handle(order, "order.paid") == "counted"  # at least once: no inbox for this type
    sales = DailySales.objects.get()
    assert (sales.currency, sales.paid_orders, str(sales.paid_amount)) == ("EUR", 2, "99.80")
