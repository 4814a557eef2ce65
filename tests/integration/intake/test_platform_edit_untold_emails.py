"""The edit stored untold with its cancellation, emailed by a real worker through RabbitMQ and
the mail simulator: the customer gets the cancellation's email alone, and it carries the edit's
credit note and new invoice, the credit note of what never came in and that of the refund."""

import pytest

from notifications.models import Notification
from orders.models import Invoice, Order
from tests import woocommerce_payloads as woo
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def test_the_cancellation_email_carries_the_untold_edit_s_documents(woo_deliver, mailsim, start_worker):
    # given: a paid order of 59.70, invoiced
    woo_deliver("order.created", woo.ORDER)
    # when: one save adds a teapot (93.70) and cancels the order, the 59.70 that came in refunded
    # (its 34.00 balance never came in: a WooCommerce cancellation says no payment)
    cancelled = woo.order(date_modified_gmt="2026-12-01T08:00:00", total="93.70", total_tax="14.96")
    cancelled["line_items"][1] |= {"quantity": 2, "subtotal": "57.14", "subtotal_tax": "10.86"}
    cancelled["line_items"][1] |= {"total": "57.14", "total_tax": "10.86"}
    cancelled |= {"status": "cancelled", "refunds": [{"id": 803, "reason": "Cancelled", "total": "-59.70"}]}
    woo_deliver("order.updated", cancelled)
    start_worker()
    order = Order.objects.get(platform_order_id=str(woo.ORDER_ID))
    # (the confirmation, not sent yet, is skipped: the order is cancelled)
    wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_cancellation", status="sent").exists(),
        timeout=40,
        message="the cancellation's email sent",
    )
    # then: no "changed" email; the cancellation's carries the edit's documents and the refund's
    assert sorted(Notification.objects.filter(order=order).values_list("kind", flat=True)) == [
        "order_cancellation",
        "order_confirmation",
    ]
    cancellation = Notification.objects.get(order=order, kind="order_cancellation")
    carried = Invoice.objects.filter(order=order, email_kind="order_cancellation").order_by("number")
    assert list(carried.values_list("kind", "total_minor")) == [
        ("credit_note", -5970),
        ("invoice", 9370),
        ("credit_note", -3400),
        ("credit_note", -5970),
    ]
    assert [entry["invoice"] for entry in cancellation.email_attachments] == [str(d.pk) for d in carried]
    [message] = [m for m in mailsim.messages() if m["subject"] == cancellation.email_subject]
    assert len(message["attachments"]) == 4
