"""The shop's order number is unique per API token: a partial unique index, built
concurrently (outside a transaction) so orders keep coming in while it is built on a table of
any size; Django's state gets the matching constraint."""

from django.db import migrations, models

INDEX = "order_unique_token_number"


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("orders", "0005_shop_orders"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {INDEX} "
                    "ON orders_order (api_token_id, number) WHERE number IS NOT NULL",
                    reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}",
                ),
            ],
            state_operations=[
                migrations.AddConstraint(
                    model_name="order",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(number__isnull=False),
                        fields=("api_token", "number"),
                        name=INDEX,
                    ),
                ),
            ],
        ),
    ]
