"""Each attempt keeps the address it sent to, so a provider's late event about a send from
before an address correction acts on that send's address, not the corrected one. The column
alone (its database default serves workers of the previous release); 0022 fills it for the
attempts before corrections, in a transaction of its own, so the table's lock of this ALTER is
held for a moment only."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0020_reconcile_mismatches"),
    ]

    operations = [
        migrations.AddField(
            model_name="deliveryattempt",
            name="recipient",
            field=models.EmailField(blank=True, db_default="", default="", max_length=254),
        ),
    ]
