"""Reviewers see the shop platforms' deliveries and run again those that could not be used."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP_NAME = "Notification reviewers"
ADDED = ["view_platformdelivery", "view_unusabledelivery", "rerun_platformdelivery"]


def grant(apps, schema_editor):
    app_config = apps.get_app_config("intake")
    # Permissions are normally created after all migrations; the group needs them now.
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    group = apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).first()
    if group is None:
        return
    permission_model = apps.get_model("auth", "Permission")
    for codename in ADDED:
        group.permissions.add(
            permission_model.objects.get(content_type__app_label="intake", codename=codename)
        )


def revoke(apps, schema_editor):
    group = apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).first()
    if group is not None:
        permissions = apps.get_model("auth", "Permission").objects.filter(
            content_type__app_label="intake", codename__in=ADDED
        )
        group.permissions.remove(*permissions)


class Migration(migrations.Migration):
    dependencies = [
        ("intake", "0001_initial"),
        ("notifications", "0005_reviewers_group"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
