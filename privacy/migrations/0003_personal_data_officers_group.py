"""The "Personal data officers" group: who may export or erase one customer's personal data
in the admin, and see the erasures done (privacy/officers.py)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

# The group as it is at this migration (a migration keeps its own copy: the code moves on).
GROUP_NAME = "Personal data officers"
GROUP_PERMISSIONS = ["view_erasure", "export_customer", "erase_customer"]


def create_group(apps, schema_editor):
    app_config = apps.get_app_config("privacy")
    # Permissions are normally created after all migrations; the group needs them now.
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    group, _ = apps.get_model("auth", "Group").objects.get_or_create(name=GROUP_NAME)
    permission_model = apps.get_model("auth", "Permission")
    for codename in GROUP_PERMISSIONS:
        group.permissions.add(
            permission_model.objects.get(content_type__app_label="privacy", codename=codename)
        )


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("privacy", "0002_erasure_permissions"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
