"""A suppression keeps its address's keyed hash (infra/keyed_hash.py), so that it still holds
once the address is erased at its owner's request. The existing rows get theirs here (the
list is short: one row per address that bounced or complained); the column's database default
serves the previous release's processes during a rolling deploy, and the claim matches a row
without a hash by its address, as before. Uniqueness of an active suppression now holds on
either: the address where it is still there, the hash where it is set."""

import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


def _hashes_fill(apps, schema_editor) -> None:
    from infra.keyed_hash import address_hash

    suppression = apps.get_model("notifications", "Suppression")
    for row in suppression.objects.filter(address_hash="").exclude(address="").only("id", "address"):
        suppression.objects.filter(pk=row.pk).update(address_hash=address_hash(row.address))


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0028_notification_email_from"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="suppression", name="suppression_one_active"),
        migrations.AddField(
            model_name="suppression",
            name="address_hash",
            field=models.CharField(blank=True, db_default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="suppression",
            name="address",
            field=models.EmailField(blank=True, max_length=254),
        ),
        migrations.RunPython(_hashes_fill, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="suppression",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("address"),
                condition=models.Q(("lifted_at__isnull", True), models.Q(("address", ""), _negated=True)),
                name="suppression_one_active",
            ),
        ),
        migrations.AddConstraint(
            model_name="suppression",
            constraint=models.UniqueConstraint(
                models.F("address_hash"),
                condition=models.Q(
                    ("lifted_at__isnull", True), models.Q(("address_hash", ""), _negated=True)
                ),
                name="suppression_one_active_hash",
            ),
        ),
    ]
