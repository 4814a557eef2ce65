"""`paid_at` of the orders paid before 0012: a paid order, a cancelled one that has a refund
(it must have been paid), and a cancelled one whose `order.paid` event the outbox still holds.
Every other order stays unpaid: a cancelled order with neither may never have been paid, or
its payment's event went with the outbox's retention; a refund of it is refused as of an order
never paid (docs/orders.md says so). The time is that of its `order.paid` event while the
outbox holds it, else its last change, the best known.

One UPDATE per case over the whole table, in a migration of its own: its transaction locks
only the rows it changes, never the whole table (0012 added the column under its short table
lock and committed), so orders keep coming in meanwhile. Back: nothing to undo here; 0012 back
removes the column."""

from django.db import migrations

BACKFILL = """
UPDATE orders_order AS o SET paid_at = COALESCE(
    (SELECT min(e.created_at) FROM messaging_outboxevent AS e
     WHERE e.aggregate_type = 'order' AND e.aggregate_id = o.id::text AND e.event_type = 'order.paid'),
    o.updated_at
)
WHERE o.paid_at IS NULL AND {paid}
"""
PAID = "o.status = 'paid'"
CANCELLED_AFTER_A_REFUND = (
    "o.status = 'cancelled' AND EXISTS (SELECT 1 FROM orders_refund AS r WHERE r.order_id = o.id)"
)
CANCELLED_AFTER_ITS_PAYMENT = (
    "o.status = 'cancelled' AND EXISTS (SELECT 1 FROM messaging_outboxevent AS e WHERE "
    "e.aggregate_type = 'order' AND e.aggregate_id = o.id::text AND e.event_type = 'order.paid')"
)


class Migration(migrations.Migration):
    dependencies = [
        ("orders", "0012_order_paid_at"),
        ("messaging", "0002_tables_of_their_own"),
    ]

    operations = [
        migrations.RunSQL(BACKFILL.format(paid=PAID), reverse_sql=migrations.RunSQL.noop),
        migrations.RunSQL(BACKFILL.format(paid=CANCELLED_AFTER_A_REFUND), reverse_sql=migrations.RunSQL.noop),
        migrations.RunSQL(
            BACKFILL.format(paid=CANCELLED_AFTER_ITS_PAYMENT), reverse_sql=migrations.RunSQL.noop
        ),
    ]
