"""The email's row keeps only the indexes its lookups use.

No update of a notification is a HOT one (its status is indexed), so each status change
writes the row's new version into every index whose predicate it meets. Three of them served
no lookup of a pending or sending email: the LIKE index Django adds beside a `unique=True`
text column (nothing searches keys by prefix), and full indexes on the reviewer and the
override it was rendered from, columns that are empty on nearly every row (now partial). The
attempt's own index on its email is dropped: the unique (notification, number) leads with it.

Built and dropped concurrently (outside a transaction), so emails keep being written on a
table of any size; the unique constraint on the key is only renamed. Django's state gets the
same indexes and constraint, declared in the models."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

NOTIFICATION = "notifications_notification"
# The names Django gave the indexes it made for the fields (a digest of table and column).
FIELD_INDEXES = {
    "owner": "notifications_notification_owner_id_7edeab4e",
    "email_template": "notifications_notification_email_template_id_51672f7c",
    "idempotency_key_like": "notifications_notification_idempotency_key_0aab04ad_like",
    "attempt_notification": "notifications_deliveryattempt_notification_id_2e6cf679",
}
KEY_CONSTRAINT_BEFORE = "notifications_notification_idempotency_key_key"
KEY_CONSTRAINT = "notification_unique_idempotency_key"


def _partial_index(name: str, column: str) -> migrations.RunSQL:
    return migrations.RunSQL(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {NOTIFICATION} ({column}) WHERE {column} IS NOT NULL",
        reverse_sql=f"DROP INDEX CONCURRENTLY IF EXISTS {name}",
    )


def _drop_index(name: str, recreate: str) -> migrations.RunSQL:
    return migrations.RunSQL(
        f"DROP INDEX CONCURRENTLY IF EXISTS {name}",
        reverse_sql=f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {recreate}",
    )


class Migration(migrations.Migration):
    atomic = False
    dependencies = [
        ("notifications", "0031_provider_failover_state"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                _partial_index("notification_owner_idx", "owner_id"),
                _partial_index("notification_template_idx", "email_template_id"),
                _drop_index(FIELD_INDEXES["owner"], f"{NOTIFICATION} (owner_id)"),
                _drop_index(FIELD_INDEXES["email_template"], f"{NOTIFICATION} (email_template_id)"),
                _drop_index(
                    FIELD_INDEXES["idempotency_key_like"],
                    f"{NOTIFICATION} (idempotency_key varchar_pattern_ops)",
                ),
                _drop_index(
                    FIELD_INDEXES["attempt_notification"], "notifications_deliveryattempt (notification_id)"
                ),
                migrations.RunSQL(
                    f"ALTER TABLE {NOTIFICATION} RENAME CONSTRAINT {KEY_CONSTRAINT_BEFORE} TO {KEY_CONSTRAINT}",
                    reverse_sql=f"ALTER TABLE {NOTIFICATION} RENAME CONSTRAINT {KEY_CONSTRAINT} TO {KEY_CONSTRAINT_BEFORE}",
                ),
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="deliveryattempt",
                    name="notification",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="attempts",
                        to="notifications.notification",
                    ),
                ),
                migrations.AlterField(
                    model_name="notification",
                    name="email_template",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="notifications.emailtemplateversion",
                    ),
                ),
                migrations.AlterField(
                    model_name="notification", name="idempotency_key", field=models.CharField(max_length=64)
                ),
                migrations.AlterField(
                    model_name="notification",
                    name="owner",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AddIndex(
                    model_name="notification",
                    index=models.Index(
                        condition=models.Q(("owner__isnull", False)),
                        fields=["owner"],
                        name="notification_owner_idx",
                    ),
                ),
                migrations.AddIndex(
                    model_name="notification",
                    index=models.Index(
                        condition=models.Q(("email_template__isnull", False)),
                        fields=["email_template"],
                        name="notification_template_idx",
                    ),
                ),
                migrations.AddConstraint(
                    model_name="notification",
                    constraint=models.UniqueConstraint(fields=("idempotency_key",), name=KEY_CONSTRAINT),
                ),
            ],
        ),
    ]
