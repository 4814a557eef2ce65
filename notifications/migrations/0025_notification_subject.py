"""An order may have several emails of one kind (one per shipment): a notification names what
it is about (`subject_id`), and the unique (order, kind) holds only for the order's own emails.
The new unique indexes are built concurrently (outside a transaction), so emails keep being
recorded while they are built on a table of any size; the old constraint goes only after both
exist, so no moment is without one."""

from django.db import migrations, models

TABLE = "notifications_notification"
ONCE = "notification_unique_order_kind_once"
SUBJECT = "notification_unique_kind_subject"
OLD = "notification_unique_order_kind"


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("notifications", "0024_notification_content_version"),
        ("orders", "0007_shipments"),
    ]

    operations = [
        migrations.AddField(
            model_name="notification",
            name="subject_id",
            field=models.UUIDField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="notification",
            name="kind",
            field=models.CharField(
                choices=[
                    ("order_confirmation", "Order confirmation"),
                    ("order_cancellation", "Order cancellation"),
                    ("order_shipment", "Shipment"),
                ],
                max_length=32,
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {ONCE} "
                    f"ON {TABLE} (order_id, kind) WHERE subject_id IS NULL",
                    reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {ONCE}",
                ),
                migrations.RunSQL(
                    f"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS {SUBJECT} "
                    f"ON {TABLE} (kind, subject_id) WHERE subject_id IS NOT NULL",
                    reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {SUBJECT}",
                ),
                migrations.RunSQL(
                    f"ALTER TABLE {TABLE} DROP CONSTRAINT IF EXISTS {OLD}",
                    reverse_sql=f"ALTER TABLE {TABLE} ADD CONSTRAINT {OLD} UNIQUE (order_id, kind)",
                ),
            ],
            state_operations=[
                migrations.RemoveConstraint(model_name="notification", name=OLD),
                migrations.AddConstraint(
                    model_name="notification",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(subject_id__isnull=True), fields=("order", "kind"), name=ONCE
                    ),
                ),
                migrations.AddConstraint(
                    model_name="notification",
                    constraint=models.UniqueConstraint(
                        condition=models.Q(subject_id__isnull=False),
                        fields=("kind", "subject_id"),
                        name=SUBJECT,
                    ),
                ),
            ],
        ),
    ]
