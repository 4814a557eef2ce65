from django.db import models


class RetentionRun(models.Model):
    """One run of the hourly retention job (messaging/retention.py): when, and how many rows
    each of its steps removed or cleared, so the dashboard can say it runs and what it does."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    removed = models.JSONField(default=dict)  # {"outbox_deleted": 120, "email_snapshots_deleted": 3, …}

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"retention run at {self.started_at:%Y-%m-%d %H:%M}"
