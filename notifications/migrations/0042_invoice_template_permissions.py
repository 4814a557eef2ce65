"""The invoice template gets permissions of its own, apart from the emails' wording's, and the
"Invoice template editors" group has them (notifications/invoice_template_editors.py). The
"Email editors" keep what they have, which no longer reaches the invoice template: people who
wrote it before are added to the new group by hand."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

# The group as it is at this migration (a migration keeps its own copy: the code moves on).
GROUP_NAME = "Invoice template editors"
GROUP_PERMISSIONS = [
    "view_emailtemplateversion",
    "change_invoice_template",
    "publish_invoice_template",
]


def create_group(apps, schema_editor):
    app_config = apps.get_app_config("notifications")
    # Permissions are normally created after all migrations; the group needs them now.
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    group, _ = apps.get_model("auth", "Group").objects.get_or_create(name=GROUP_NAME)
    permission_model = apps.get_model("auth", "Permission")
    for codename in GROUP_PERMISSIONS:
        group.permissions.add(
            permission_model.objects.get(content_type__app_label="notifications", codename=codename)
        )


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0041_reconcile_invoice_problems"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="emailtemplateversion",
            options={
                "ordering": ["kind", "locale", "-number"],
                "permissions": [
                    ("publish_emailtemplateversion", "Can publish and retire email wording"),
                    ("change_invoice_template", "Can write new versions of the invoice template"),
                    ("publish_invoice_template", "Can publish and retire the invoice template"),
                ],
            },
        ),
        migrations.RunPython(create_group, remove_group),
    ]
