"""The drill's verdict repeats the product's billable amount in plain SQL and Python
(tools/drill/invoice_settlement.py, never importing orders/invoicing/settlement.py): the same
orders, read by each, must come to the same sum, or the drill judges by a rule the product
does not keep."""

from decimal import Decimal

import pytest
from django.db import connection
from django.utils import timezone

from orders.changes import order_paid_minor
from orders.invoicing.settlement import billable
from orders.models import Order, Refund
from tools.drill.invoice_settlement import ORDER_MONEY, billable_minor

pytestmark = pytest.mark.django_db

CASES = {
    "paid, nothing back": ("50.00", "EUR", 5000, []),
    "a return": ("50.00", "EUR", 5000, [1500]),
    "edited down, the overpayment back": ("35.00", "EUR", 5000, [1500]),
    "edited down, the overpayment and a return back": ("35.00", "EUR", 5000, [1000, 1000]),
    "edited up after a return": ("60.00", "EUR", 5000, [1500]),
    "paid before paid_minor was kept": ("50.00", "EUR", None, [500]),
    "no decimals": ("500.00", "JPY", 800, [300, 100]),
    "three decimals": ("12.50", "KWD", 12500, [2000]),
}


def settlement_case_order(amount: str, currency: str, paid_minor: int | None, refunds: list[int]) -> Order:
    """One of CASES as an order: paid `paid_minor`, now of `amount`, with its refunds."""
    order = Order.objects.create(
        customer_email="a@example.com",
        amount=Decimal(amount),
        currency=currency,
        status=Order.Status.PAID,
        paid_at=timezone.now(),
        paid_minor=paid_minor,
    )
    for n, refunded in enumerate(refunds):
        Refund.objects.create(
            order=order, shop_refund_id=f"r{n}", amount_minor=refunded, request_fingerprint=""
        )
    return order


@pytest.mark.parametrize(("amount", "currency", "paid_minor", "refunds"), CASES.values(), ids=CASES.keys())
def test_the_drill_and_the_product_agree_on_what_an_order_must_be_billed(
    amount, currency, paid_minor, refunds
):
    # given: an order paid, perhaps edited since (its amount now), and its refunds
    order = settlement_case_order(amount, currency, paid_minor, refunds)
    # when: each reads it its own way
    product = billable(order, paid_minor=order_paid_minor(order))
    with connection.cursor() as cursor:
        cursor.execute(f"{ORDER_MONEY} WHERE o.id = %s", [order.id])
        row = dict(zip([column.name for column in cursor.description], cursor.fetchone(), strict=True))
    drill = billable_minor(row, sum(refunds))
    # then
    assert drill == product
