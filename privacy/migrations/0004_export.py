"""The record of each export of a customer's data (privacy.Export), and the officers' right to
see them."""

import django.db.models.deletion
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations, models


def officers_may_view_exports(apps, schema_editor):
    app_config = apps.get_app_config("privacy")
    app_config.models_module = True  # the new model's permissions, now (as 0003 does)
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    view = apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="privacy", codename="view_export"
    )
    for group in apps.get_model("auth", "Group").objects.filter(name="Personal data officers"):
        group.permissions.add(view)


class Migration(migrations.Migration):
    dependencies = [
        ("privacy", "0003_personal_data_officers_group"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Export",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("address_hash", models.CharField(db_index=True, max_length=64)),
                (
                    "via",
                    models.CharField(
                        choices=[
                            ("command", "manage.py customer_erase"),
                            ("admin", "the admin"),
                            ("api", "the API"),
                            ("platform", "the shop's platform (a privacy webhook)"),
                        ],
                        max_length=16,
                    ),
                ),
                ("actor_name", models.CharField(max_length=150)),
                ("orders", models.PositiveIntegerField()),
                ("exported_at", models.DateTimeField(auto_now_add=True)),
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
            ],
            options={
                "ordering": ["-exported_at"],
            },
        ),
        migrations.RunPython(officers_may_view_exports, migrations.RunPython.noop),
    ]
