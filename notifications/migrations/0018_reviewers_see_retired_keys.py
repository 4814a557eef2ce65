"""Reviewers see the keys retired by "send again under a new key" and the address
corrections (both written by their review actions, audited)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP_NAME = "Notification reviewers"
ADDED = ["view_retiredkey", "view_addresscorrection"]


def grant(apps, schema_editor):
    app_config = apps.get_app_config("notifications")
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
            permission_model.objects.get(content_type__app_label="notifications", codename=codename)
        )


def revoke(apps, schema_editor):
    group = apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).first()
    if group is not None:
        permissions = apps.get_model("auth", "Permission").objects.filter(codename__in=ADDED)
        group.permissions.remove(*permissions)


class Migration(migrations.Migration):
    dependencies = [("notifications", "0017_review_resolutions")]

    operations = [migrations.RunPython(grant, revoke)]
