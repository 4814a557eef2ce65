"""The "Notification reviewers" group: who may act on failed notifications in the admin."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from notifications.reviewers import GROUP_NAME, reviewers_group_ensure


def create_group(apps, schema_editor):
    for app_label in ("notifications", "orders"):
        # Permissions are normally created after all migrations; this group needs them now.
        # The migration app registry's stub lacks models_module, which create_permissions checks.
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    reviewers_group_ensure(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0004_review_permission"),
        ("orders", "0002_dailysales"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
