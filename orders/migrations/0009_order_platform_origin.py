"""An order may come from a connected shop's platform: its shop, the platform's id for it and the
platform's timestamp of the newest state applied. The columns are nullable without a default (no
table rewrite); the unique (shop, platform order id) index is built concurrently, outside a
transaction, so orders keep being placed while it is built on a table of any size."""

import django.db.models.deletion
from django.db import migrations, models

TABLE = "orders_order"
INDEX = "order_unique_shop_platform_order"


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("orders", "0008_refunds"),
        ("shops", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="order",
            name="platform_order_id",
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="order",
            name="platform_updated_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="order",
            name="shop",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="shops.shop",
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} "
                    f"ON {TABLE} (shop_id, platform_order_id) WHERE shop_id IS NOT NULL",
                    reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}",
                ),
            ],
            state_operations=[
                migrations.AddConstraint(
                    model_name="order",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(shop__isnull=False),
                        fields=("shop", "platform_order_id"),
                        name=INDEX,
                    ),
                ),
            ],
        ),
    ]
