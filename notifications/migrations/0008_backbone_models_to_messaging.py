"""The outbox, the inbox and the dead-letter history now belong to the messaging app
(messaging/migrations/0001_initial.py takes them over, tables included)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0007_retention_indexes"),
        ("messaging", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="DeadLetterRecord"),
                migrations.DeleteModel(name="OutboxEvent"),
                migrations.DeleteModel(name="ProcessedEvent"),
            ],
            database_operations=[],
        ),
    ]
