"""The daily sales figure, fed by `order.paid` events at least once (orders/events.py says why):
each paid order once, on the day of its first payment, with what had come in when its event is
counted (an order paid in part, its deposit, and a balance collected before a worker counted it;
one collected after is not added: the orders' `paid_minor` stays the record). The event carries
ids only (messaging/envelope.py), so what the payment itself took is not known here."""

from datetime import date

from django.db import connection

from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from messaging.errors import PermanentError
from orders.changes import order_paid_minor
from orders.content import minor_to_amount
from orders.models import DailySales, Order


def daily_sales_count_handle(*, envelope: Envelope, delivery: Delivery) -> str:
    """The handler of `order.paid` (registered in orders/events.py)."""
    order = Order.objects.filter(id=envelope.aggregate_id).first()
    if order is None:
        raise PermanentError(f"The order {envelope.aggregate_id} does not exist in the database.")
    daily_sales_count_payment(order=order, day=envelope.occurred_at.date())
    return "counted"


def daily_sales_count_payment(*, order: Order, day: date) -> None:
    """Add a paid order to its day's figure, with what had come in when it is counted: one
    upsert, no read-modify-write race."""
    table = DailySales._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (day, currency, paid_orders, paid_amount)
            VALUES (%s, %s, 1, %s)
            ON CONFLICT (day, currency) DO UPDATE
               SET paid_orders = {table}.paid_orders + 1,
                   paid_amount = {table}.paid_amount + EXCLUDED.paid_amount
            """,
            [day, order.currency, minor_to_amount(order_paid_minor(order), order.currency)],
        )
