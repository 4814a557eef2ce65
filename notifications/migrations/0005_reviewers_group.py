"""The "Notification reviewers" group: who may act on failed notifications in the admin."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

# The group as it was at this migration (a migration keeps its own copy: the code moves on,
# e.g. the outbox's models later moved to the messaging app).
GROUP_NAME = "Notification reviewers"
GROUP_PERMISSIONS = [
    ("notifications", "review_notification"),
    ("notifications", "view_notification"),
    ("notifications", "view_deliveryattempt"),
    ("notifications", "view_operatoraction"),
    ("notifications", "view_outboxevent"),
    ("notifications", "view_deadletterrecord"),
    ("notifications", "view_reconcilereport"),
    ("orders", "view_order"),
]


def create_group(apps, schema_editor):
    for app_label in ("notifications", "orders"):
        # Permissions are normally created after all migrations; this group needs them now.
        # The migration app registry's stub lacks models_module, which create_permissions checks.
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    group, _ = apps.get_model("auth", "Group").objects.get_or_create(name=GROUP_NAME)
    permission_model = apps.get_model("auth", "Permission")
    for app_label, codename in GROUP_PERMISSIONS:
        group.permissions.add(
            permission_model.objects.get(content_type__app_label=app_label, codename=codename)
        )


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
