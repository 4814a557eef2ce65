"""The voided runs' names in the admin, which now lists them (orders/admin.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("orders", "0023_voided_invoice_numbers"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="voidedinvoicenumbers",
            options={
                "ordering": ["series", "first"],
                "verbose_name": "voided run of invoice numbers",
                "verbose_name_plural": "voided invoice numbers",
            },
        ),
    ]
