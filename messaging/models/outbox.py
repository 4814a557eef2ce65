import uuid

from django.contrib.postgres.indexes import BrinIndex
from django.db import models


class OutboxEvent(models.Model):
    """An event written in the same transaction as the change it describes.

    The row is the durable promise to publish: it stays unpublished until the broker has
    confirmed the message, and `id` is the event id forever (task id, AMQP message id,
    inbox key), so every duplicate further down can be recognised.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    event_type = models.CharField(max_length=64)
    aggregate_type = models.CharField(max_length=32)
    aggregate_id = models.CharField(max_length=64)
    schema_version = models.PositiveSmallIntegerField(default=1)
    # The message envelope, small and free of personal data: ids only.
    payload = models.JSONField()
    created_at = models.DateTimeField()
    published_at = models.DateTimeField(null=True, blank=True)
    # Lease and back-off in one: no relay touches the row before this time. A claim sets it
    # a few seconds ahead (so a crashed claimer's rows come back by themselves), a failed
    # publish sets it further ahead.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=100, blank=True)
    publish_attempts = models.PositiveIntegerField(default=0)
    last_publish_error = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [
            # The relay's claim query reads only unpublished rows, oldest first; published
            # history never enters this index, so the claim stays fast as history grows.
            models.Index(
                fields=["created_at"],
                condition=models.Q(published_at__isnull=True),
                name="outbox_unpublished_idx",
            ),
            models.Index(fields=["aggregate_type", "aggregate_id"], name="outbox_aggregate_idx"),
            # For the retention job's range delete: a BRIN index is a few pages for millions of
            # rows written in time order, and costs next to nothing per insert.
            BrinIndex(fields=["created_at"], name="outbox_created_brin"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.id}"
