from django.contrib.postgres.indexes import BrinIndex
from django.db import models


class ProcessedEvent(models.Model):
    """The inbox: an event a handler has finished with. Written in the same transaction as
    the handler's final result, so a duplicate delivery finds it and does nothing, and a
    dead-lettered event (no row) is processed when it is replayed."""

    event_id = models.UUIDField()
    handler = models.CharField(max_length=64)
    result = models.CharField(max_length=32)
    processed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event_id", "handler"], name="inbox_unique_event_handler"),
        ]
        indexes = [BrinIndex(fields=["processed_at"], name="inbox_processed_brin")]  # retention

    def __str__(self) -> str:
        return f"{self.handler} {self.event_id}: {self.result}"
