"""The migration that gives orders their `paid_at` fills it for the orders that were paid before
it: a paid order, a cancelled one that has a refund (it must have been paid), and a cancelled
one whose `order.paid` event the outbox still holds, at the time of that event if there is
one, else at its last change. Every other order stays unpaid. It goes back and forward again."""

from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from messaging.models import OutboxEvent
from orders.events import AGGREGATE, ORDER_PAID
from orders.models import Order, Refund

pytestmark = pytest.mark.django_db(transaction=True)

PAID_EVENT_AT = datetime(2026, 11, 1, 10, 0, tzinfo=UTC)
LAST_CHANGE_AT = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
BEFORE = "0011_order_erased_at"


def _order(number: str, status: str) -> Order:
    order = Order.objects.create(
        number=number, customer_email=f"{number}@example.com", amount="34.80", currency="EUR", status=status
    )
    Order.objects.filter(pk=order.pk).update(updated_at=LAST_CHANGE_AT)
    return order


def _refund_of(order: Order) -> None:
    Refund.objects.create(order=order, shop_refund_id="R1", amount_minor=1250, request_fingerprint="f")


def _paid_event_of(order: Order) -> None:
    OutboxEvent.objects.create(
        event_type=ORDER_PAID,
        aggregate_type=AGGREGATE,
        aggregate_id=str(order.id),
        payload={},
        created_at=PAID_EVENT_AT,
    )


def test_the_migration_fills_paid_at_of_the_orders_that_were_paid_and_goes_back():
    # given: the orders as the release before it left them (the column goes with the migration back)
    paid = _order("paid", "paid")
    paid_with_its_event = _order("paid-event", "paid")
    _paid_event_of(paid_with_its_event)
    cancelled_refunded = _order("cancelled-refunded", "cancelled")
    _refund_of(cancelled_refunded)
    cancelled_after_its_payment = _order("cancelled-paid-event", "cancelled")
    _paid_event_of(cancelled_after_its_payment)
    cancelled = _order("cancelled", "cancelled")
    created = _order("created", "created")
    try:
        call_command("migrate", "orders", BEFORE, verbosity=0)
    finally:
        # when (and whatever happened, the schema is this release's again for the next tests)
        call_command("migrate", "orders", verbosity=0)
    # then
    paid_at = dict(Order.objects.values_list("number", "paid_at"))
    assert paid_at == {
        paid.number: LAST_CHANGE_AT,
        paid_with_its_event.number: PAID_EVENT_AT,
        cancelled_refunded.number: LAST_CHANGE_AT,
        cancelled_after_its_payment.number: PAID_EVENT_AT,
        cancelled.number: None,
        created.number: None,
    }
    # and it goes back, and forward again to the same
    try:
        call_command("migrate", "orders", BEFORE, verbosity=0)
    finally:
        call_command("migrate", "orders", verbosity=0)
    assert dict(Order.objects.values_list("number", "paid_at")) == paid_at
