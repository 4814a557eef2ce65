"""An active suppression is one per address by its keyed hash, and by its address only where
the row has no hash (a row of an earlier release): lower() of every address made ada@İstanbul.com
and ada@istanbul.com one (PostgreSQL makes the dotted capital I an i; IDNA 2008 keeps its dot),
so the second's bounce could not be kept while the first was suppressed. The lookups by the
address keep an index of their own."""

import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0034_operatoraction_platform_address"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="suppression",
            index=models.Index(
                django.db.models.functions.text.Lower("address"),
                condition=models.Q(("lifted_at__isnull", True), models.Q(("address", ""), _negated=True)),
                name="suppression_active_address",
            ),
        ),
        migrations.RemoveConstraint(model_name="suppression", name="suppression_one_active"),
        migrations.AddConstraint(
            model_name="suppression",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("address"),
                condition=models.Q(
                    ("address_hash", ""),
                    ("lifted_at__isnull", True),
                    models.Q(("address", ""), _negated=True),
                ),
                name="suppression_one_active",
            ),
        ),
    ]
