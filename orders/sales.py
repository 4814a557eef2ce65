"""The daily sales figure, fed by `order.paid` events at least once (see the registry)."""

from datetime import date

from django.db import connection

from orders.models import DailySales, Order


def daily_sales_count_payment(*, order: Order, day: date) -> None:
    """Add a paid order to its day's figure: one upsert, no read-modify-write race."""
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
            [day, order.currency, order.amount],
        )
