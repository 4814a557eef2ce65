"""Tokens speak for a client (ApiToken.client), which a rotation keeps. Each existing token
gets its own, from the database default: tokens that merely share a name are not assumed to
be one client (a reused name must not hand one client another's orders)."""

import uuid

import django.contrib.postgres.functions
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("apiauth", "0003_api_token_revocation"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="client",
            field=models.UUIDField(
                db_default=django.contrib.postgres.functions.RandomUUID(),
                db_index=True,
                default=uuid.uuid4,
                editable=False,
            ),
        ),
    ]
