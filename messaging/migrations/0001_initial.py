"""The backbone's models (outbox, inbox, dead-letter history) move here from the
notifications app. Their tables stay as they are in this step (state only); the next
migration gives them names of their own."""

import uuid

import django.contrib.postgres.indexes
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [("notifications", "0007_retention_indexes")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="DeadLetterRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("event_id", models.UUIDField(blank=True, null=True)),
                        ("message_id", models.CharField(blank=True, max_length=255)),
                        ("queue", models.CharField(max_length=100)),
                        ("error_class", models.CharField(max_length=32)),
                        ("reason", models.TextField()),
                        ("worker", models.CharField(max_length=255)),
                        ("dead_lettered_at", models.DateTimeField()),
                    ],
                    options={
                        "db_table": "notifications_deadletterrecord",
                        "ordering": ["-dead_lettered_at"],
                        "indexes": [models.Index(fields=["event_id"], name="dead_letter_event_idx")],
                    },
                ),
                migrations.CreateModel(
                    name="OutboxEvent",
                    fields=[
                        (
                            "id",
                            models.UUIDField(
                                default=uuid.uuid4, editable=False, primary_key=True, serialize=False
                            ),
                        ),
                        ("event_type", models.CharField(max_length=64)),
                        ("aggregate_type", models.CharField(max_length=32)),
                        ("aggregate_id", models.CharField(max_length=64)),
                        ("schema_version", models.PositiveSmallIntegerField(default=1)),
                        ("payload", models.JSONField()),
                        ("created_at", models.DateTimeField()),
                        ("published_at", models.DateTimeField(blank=True, null=True)),
                        ("next_attempt_at", models.DateTimeField(blank=True, null=True)),
                        ("claimed_by", models.CharField(blank=True, max_length=100)),
                        ("publish_attempts", models.PositiveIntegerField(default=0)),
                        ("last_publish_error", models.TextField(blank=True)),
                    ],
                    options={
                        "db_table": "notifications_outboxevent",
                        "ordering": ["created_at"],
                        "indexes": [
                            models.Index(
                                condition=models.Q(("published_at__isnull", True)),
                                fields=["created_at"],
                                name="outbox_unpublished_idx",
                            ),
                            models.Index(
                                fields=["aggregate_type", "aggregate_id"], name="outbox_aggregate_idx"
                            ),
                            django.contrib.postgres.indexes.BrinIndex(
                                fields=["created_at"], name="outbox_created_brin"
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="ProcessedEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("event_id", models.UUIDField()),
                        ("handler", models.CharField(max_length=64)),
                        ("result", models.CharField(max_length=32)),
                        ("processed_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "db_table": "notifications_processedevent",
                        "indexes": [
                            django.contrib.postgres.indexes.BrinIndex(
                                fields=["processed_at"], name="inbox_processed_brin"
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("event_id", "handler"), name="inbox_unique_event_handler"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
