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

PAID, CANCELLED = Order.Status.PAID, Order.Status.CANCELLED
CASES = {
    "paid, nothing back": ("50.00", "EUR", 5000, [], PAID),
    "a return": ("50.00", "EUR", 5000, [1500], PAID),
    "edited down, the overpayment back": ("35.00", "EUR", 5000, [1500], PAID),
    "edited down, the overpayment and a return back": ("35.00", "EUR", 5000, [1000, 1000], PAID),
    "edited up after a return": ("60.00", "EUR", 5000, [1500], PAID),
    "paid before paid_minor was kept": ("50.00", "EUR", None, [500], PAID),
    "no decimals": ("500.00", "JPY", 800, [300, 100], PAID),
    "three decimals": ("12.50", "KWD", 12500, [2000], PAID),
    "cancelled, paid in full, nothing back yet": ("50.00", "EUR", 5000, [], CANCELLED),
    "cancelled, edited up, its balance never paid": ("60.00", "EUR", 5000, [], CANCELLED),
    "cancelled, edited up, what came in back": ("60.00", "EUR", 5000, [5000], CANCELLED),
    "cancelled, edited down, the overpayment back": ("35.00", "EUR", 5000, [1500], CANCELLED),
    "cancelled, never paid": ("50.00", "EUR", 0, [], CANCELLED),
}


def settlement_case_order(
    amount: str, currency: str, paid_minor: int | None, refunds: list[int], status: str = PAID
) -> Order:
    """One of CASES as an order: paid `paid_minor` (0: never paid), now of `amount`, with its
    refunds, in `status`."""
    order = Order.objects.create(
        customer_email="a@example.com",
        amount=Decimal(amount),
        currency=currency,
        status=status,
        paid_at=None if paid_minor == 0 else timezone.now(),
        paid_minor=None if paid_minor == 0 else paid_minor,
    )
    for n, refunded in enumerate(refunds):
        Refund.objects.create(
            order=order, shop_refund_id=f"r{n}", amount_minor=refunded, request_fingerprint=""
        )
    return order


@pytest.mark.parametrize(
    ("amount", "currency", "paid_minor", "refunds", "status"), CASES.values(), ids=CASES.keys()
)
def test_the_drill_and_the_product_agree_on_what_an_order_must_be_billed(
    amount, currency, paid_minor, refunds, status
):
    # given: an order paid, perhaps edited since (its amount now), its refunds, perhaps cancelled
    order = settlement_case_order(amount, currency, paid_minor, refunds, status)
    # when: each reads it its own way
    product = billable(order, paid_minor=order_paid_minor(order))
    with connection.cursor() as cursor:
        cursor.execute(f"{ORDER_MONEY} WHERE o.id = %s", [order.id])
        row = dict(zip([column.name for column in cursor.description], cursor.fetchone(), strict=True))
    drill = billable_minor(row, sum(refunds))
    # then
    assert drill == product


@pytest.mark.parametrize(
    ("case", "billable_minor"),
    [
        ("cancelled, paid in full, nothing back yet", 5000),
        ("cancelled, edited up, its balance never paid", 5000),
        ("cancelled, edited up, what came in back", 0),
        ("cancelled, never paid", 0),
    ],
)
def test_a_cancelled_order_bills_what_came_in_less_what_went_back(case, billable_minor):
    # given: a cancelled order of CASES
    order = settlement_case_order(*CASES[case])
    # then: it bills at most what came in
    assert billable(order, paid_minor=order_paid_minor(order)) == billable_minor
