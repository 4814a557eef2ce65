from django.db import models


class DeadLetterRecord(models.Model):
    """History of a message our workers dead-lettered (the DLQ holds the message itself)."""

    event_id = models.UUIDField(null=True, blank=True)  # empty when the message had no readable id
    message_id = models.CharField(max_length=255, blank=True)
    queue = models.CharField(max_length=100)
    error_class = models.CharField(max_length=32)
    reason = models.TextField()
    worker = models.CharField(max_length=255)
    dead_lettered_at = models.DateTimeField()

    class Meta:
        ordering = ["-dead_lettered_at"]
        indexes = [models.Index(fields=["event_id"], name="dead_letter_event_idx")]

    def __str__(self) -> str:
        return f"{self.queue} {self.event_id}: {self.error_class}"
