"""Cancellation before, during and after the confirmation, with a real worker: the emails a
customer gets follow the rules of docs/failure-handling.md in every ordering."""

import pytest

from notifications.models import Notification
from orders.changes import order_cancel
from orders.models import Order
from tests.broker import queue_ready_count
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

FINAL = ("sent", "skipped", "failed", "needs_review")


def _settled(order: Order) -> dict[str, str]:
    def statuses():
        found = dict(Notification.objects.filter(order=order).values_list("kind", "status"))
        return found if len(found) == 2 and all(status in FINAL for status in found.values()) else None

    return wait_until(statuses, timeout=30, message="both notifications final")


def _emails_to(mailsim, address: str) -> list[str]:
    return [m["subject"].rsplit(" ", 1)[-1] for m in mailsim.messages() if m["to"] == [address]]


def test_cancelled_before_the_worker_gets_to_it_only_the_cancellation_is_sent(mailsim, broker, module_worker):
    # the worker is busy elsewhere: hold the provider on another email first
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "busy@", "times": 2})
    OrderFactory.create(customer_email="busy@example.com", amount="1.00")
    OrderFactory.create(customer_email="busy@example.com", amount="2.00")
    order = OrderFactory.create(customer_email="before@example.com")
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _settled(order) == {"order_confirmation": "skipped", "order_cancellation": "sent"}
    assert _emails_to(mailsim, "before@example.com") == ["cancelled"]


def test_cancelled_while_the_confirmation_is_with_the_provider_both_go_out_confirmation_first(
    mailsim, module_worker
):
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "during@", "times": 1})
    order = OrderFactory.create(customer_email="during@example.com")
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sending").exists(),
        timeout=10,
        message="sending",
    )
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _settled(order) == {"order_confirmation": "sent", "order_cancellation": "sent"}
    assert _emails_to(mailsim, "during@example.com") == ["confirmed", "cancelled"]


def test_cancelled_after_the_confirmation_both_go_out_in_that_order(mailsim, module_worker):
    order = OrderFactory.create(customer_email="after@example.com")
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(), timeout=20, message="sent"
    )
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _settled(order) == {"order_confirmation": "sent", "order_cancellation": "sent"}
    assert _emails_to(mailsim, "after@example.com") == ["confirmed", "cancelled"]
    assert queue_ready_count("orders.cancellations.dlq") == 0


def test_a_cancellation_promises_money_back_only_for_an_order_that_was_paid(mailsim, module_worker):
    # given an order paid, and one never paid, each cancelled without a refund announced
    paid = OrderFactory.create(customer_email="paid-then-cancelled@example.com", amount="1.99", paid=True)
    unpaid = OrderFactory.create(customer_email="never-paid@example.com", amount="1.99")
    # when
    for order in (paid, unpaid):
        order_cancel(order_id=order.id, api_token=order.api_token)
    # then, in what each customer receives
    texts = {}
    for order in (paid, unpaid):
        _settled(order)
        [texts[order.customer_email]] = [
            m["text"]
            for m in mailsim.messages()
            if m["to"] == [order.customer_email] and m["subject"].endswith("cancelled")
        ]
    assert "If you paid for it, we refund €1.99 to you." in texts["paid-then-cancelled@example.com"]
    assert "refund" not in texts["never-paid@example.com"]
    assert "It was not paid, so nothing is charged to you." in texts["never-paid@example.com"]
