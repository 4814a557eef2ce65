"""Two deliveries of one new order arriving at the same moment on separate connections (as two
web processes take them), one saying it was paid in part and the other paid in full: whichever
commits first, the order ends paid in full, with one invoice and its series gapless."""

from functools import partial

import pytest
from django.db import connection

from intake.receive import delivery_receive
from orders.models import Invoice, Order
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.at_once import at_once
from tests.connected_shop import tea_house_create
from tests.integration.intake.platform_edit_support import money

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _order(order_id: int, updated_at: str, *, outstanding: str, status: str) -> bytes:
    payload = shopify.order(id=order_id, updated_at=updated_at, financial_status=status)
    money(payload, "current_total_price", "59.70")
    payload["total_outstanding"] = outstanding
    return shopify.body_of(payload)


def _at_once(shop: Shop, bodies: list[tuple[str, bytes]]) -> list[str]:
    """Each (event key, body) received as orders/updated in its own thread and connection."""

    def receive(event_key: str, body: bytes) -> str:
        try:
            received = delivery_receive(
                shop=shop, event_key=event_key, webhook_id="", topic="orders/updated", body=body.decode()
            )
            return received.delivery.outcome
        finally:
            connection.close()

    return sorted(at_once([partial(receive, *body) for body in bodies]))


def test_a_deposit_and_its_balance_at_once_pay_the_order_in_full_and_invoice_it_once():
    shop = tea_house_create()
    for order_id in range(1, 5):  # each race may go either way
        # when: the deposit's delivery and the balance's, at once
        deposit = _order(order_id, "2026-12-01T10:00:00+01:00", outstanding="39.70", status="partially_paid")
        balance = _order(order_id, "2026-12-02T10:00:00+01:00", outstanding="0.00", status="paid")
        outcomes = _at_once(shop, [(f"deposit-{order_id}", deposit), (f"balance-{order_id}", balance)])
        # then: both answered; paid in full; one invoice
        assert outcomes in (["stale", "used"], ["used", "used"]), outcomes
        order = Order.objects.get(platform_order_id=str(order_id))
        assert order.paid_minor == 5970
        invoices = Invoice.objects.filter(order=order).values_list("kind", "total_minor")
        assert list(invoices) == [("invoice", 5970)]
    numbers = sorted(Invoice.objects.values_list("number", flat=True))
    assert numbers == [1, 2, 3, 4]
