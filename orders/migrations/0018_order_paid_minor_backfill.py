"""`paid_minor` of the orders paid before 0017: their total, in their currency's minor units.
Orders could not be edited before this release, so a paid order's total is what its payment
took. One UPDATE per currency in the table (its decimals come from Babel, as the code's), in a
migration of its own, so its transaction locks only the rows it changes. Back: nothing to undo;
0017 back removes the column. An order this misses (paid by a process of the previous release
during the rolling deploy) still reads its total (orders/changes.py `order_paid_minor`)."""

from django.db import migrations

from orders.currencies import currency_decimals

BACKFILL = """
UPDATE orders_order SET paid_minor = round(amount * power(10, %s))::bigint
 WHERE paid_minor IS NULL AND currency = %s AND (paid_at IS NOT NULL OR status = 'paid')
"""


def paid_minor_backfill(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT currency FROM orders_order")
        for (currency,) in cursor.fetchall():
            cursor.execute(BACKFILL, [currency_decimals(currency), currency])


class Migration(migrations.Migration):
    dependencies = [("orders", "0017_order_paid_minor")]

    operations = [migrations.RunPython(paid_minor_backfill, migrations.RunPython.noop)]
