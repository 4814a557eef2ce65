"""A shop's order: its own number, the customer's name, and the versions of what was bought.
The new columns are NULL or have a database default, so the previous release's INSERTs,
which do not name them, keep working during a rolling deploy. The number's uniqueness comes
in the next migration, built concurrently."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("apiauth", "0004_api_token_client"),
        ("orders", "0004_order_locale_database_default"),
    ]

    operations = [
        migrations.CreateModel(
            name="OrderVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("content", models.JSONField()),
                ("total_minor", models.BigIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AddField(
            model_name="order",
            name="content_version",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="order",
            name="customer_name",
            field=models.CharField(blank=True, db_default="", max_length=200),
        ),
        migrations.AddField(
            model_name="order",
            name="number",
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="orderversion",
            name="order",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="versions", to="orders.order"
            ),
        ),
        migrations.AddConstraint(
            model_name="orderversion",
            constraint=models.UniqueConstraint(
                fields=("order", "number"), name="order_version_unique_number"
            ),
        ),
    ]
