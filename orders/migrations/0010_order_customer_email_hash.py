"""An order keeps its address's keyed hash beside the address, for the claim's look at the
suppression list. A constant database default: no table rewrite, and the previous release's
processes write "" during a rolling deploy (the claim then matches by address, as before)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("orders", "0009_order_platform_origin"),
    ]

    operations = [
        migrations.AddField(
            model_name="order",
            name="customer_email_hash",
            field=models.CharField(blank=True, db_default="", max_length=64),
        ),
    ]
