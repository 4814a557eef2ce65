"""Orders record when they were paid: a refund gives back at most what was paid, and an order
never paid took nothing. A nullable column: no table rewrite, and the previous release's
processes, which do not name it, write NULL during a rolling deploy (orders/changes.py,
`order_paid_at`, reads their paid orders by their status). 0013 fills it for earlier orders."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("orders", "0011_order_erased_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="order",
            name="paid_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
