"""Revocations are recorded (ApiTokenRevocation). A token revoked before has no record of
who did it: it gets one that says so, so every revoked token has one (authentication refuses
a token with a record, whatever its revoked_at says)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def record_earlier_revocations(apps, schema_editor):
    ApiToken = apps.get_model("apiauth", "ApiToken")
    ApiTokenRevocation = apps.get_model("apiauth", "ApiTokenRevocation")
    ApiTokenRevocation.objects.bulk_create(
        ApiTokenRevocation(
            token=token,
            token_name=token.name,
            actor_name="unknown",
            via="earlier",
            revoked_at=token.revoked_at,
        )
        for token in ApiToken.objects.filter(revoked_at__isnull=False)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("apiauth", "0002_api_token_rate_window"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="apitoken",
            options={
                "ordering": ["-created_at"],
                "permissions": [("revoke_apitoken", "Can revoke an API token")],
            },
        ),
        migrations.CreateModel(
            name="ApiTokenRevocation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("token_name", models.CharField(max_length=100)),
                ("actor_name", models.CharField(max_length=150)),
                (
                    "via",
                    models.CharField(
                        choices=[
                            ("admin", "the admin's Revoke action"),
                            ("command", "manage.py revoke_api_token or create_api_token --replace"),
                            ("earlier", "before revocations were recorded"),
                        ],
                        max_length=16,
                    ),
                ),
                ("revoked_at", models.DateTimeField()),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "token",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="revocation",
                        to="apiauth.apitoken",
                    ),
                ),
            ],
            options={
                "ordering": ["-revoked_at"],
            },
        ),
        migrations.RunPython(record_earlier_revocations, migrations.RunPython.noop),
    ]
