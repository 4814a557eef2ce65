"""The backbone's tables take the messaging app's names (messaging_outboxevent, ...), and
their content types (with their permissions, e.g. the reviewers' view_outboxevent) move
with them, so every group keeps what it could see."""

from django.db import migrations

MOVED = ("deadletterrecord", "outboxevent", "processedevent")


def content_types_to(app_label: str, from_label: str):
    def move(apps, schema_editor):
        content_type = apps.get_model("contenttypes", "ContentType")
        for model in MOVED:
            if content_type.objects.filter(app_label=app_label, model=model).exists():
                continue  # already there: the stale one is removed by remove_stale_contenttypes
            content_type.objects.filter(app_label=from_label, model=model).update(app_label=app_label)

    return move


class Migration(migrations.Migration):
    dependencies = [
        ("messaging", "0001_initial"),
        ("notifications", "0008_backbone_models_to_messaging"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelTable(name="deadletterrecord", table=None),
        migrations.AlterModelTable(name="outboxevent", table=None),
        migrations.AlterModelTable(name="processedevent", table=None),
        migrations.RunPython(
            content_types_to("messaging", from_label="notifications"),
            content_types_to("notifications", from_label="messaging"),
        ),
    ]
