"""The keyed hash of the address an attempt went to, and of the recipient a provider's event
names (infra/keyed_hash.py): after the customer's erasure blanks the address, a late complaint
or hard bounce still suppresses it, by its hash. Constant database defaults: no table rewrite,
and a process of the previous release inserts without naming them."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("notifications", "0032_notification_indexes_its_lookups_use")]

    operations = [
        migrations.AddField(
            model_name="deliveryattempt",
            name="recipient_hash",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
        migrations.AddField(
            model_name="providerevent",
            name="recipient_hash",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
    ]
