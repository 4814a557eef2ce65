"""Tokens speak for a client (ApiToken.client), which a rotation keeps. Each existing token
gets the database default's random value; then the tokens of one name, which
`revoke_api_token` already treats as one client, share the oldest one's."""

import uuid

import django.contrib.postgres.functions
from django.db import migrations, models


def tokens_of_a_name_share_a_client(apps, schema_editor):
    ApiToken = apps.get_model("apiauth", "ApiToken")
    client_of_name: dict[str, uuid.UUID] = {}
    for token in ApiToken.objects.order_by("created_at", "pk"):
        client = client_of_name.setdefault(token.name, token.client)
        if token.client != client:
            ApiToken.objects.filter(pk=token.pk).update(client=client)


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
        migrations.RunPython(tokens_of_a_name_share_a_client, migrations.RunPython.noop),
    ]
