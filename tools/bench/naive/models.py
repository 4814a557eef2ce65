from django.db import models


class NaiveOrder(models.Model):
    """The order of the naive pipeline: no outbox, no inbox, no idempotency key."""

    customer_email = models.EmailField()
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    status = models.CharField(max_length=16, default="created")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True)
    # The stages of commit → sent, written with `sent` in the task's one UPDATE: when the task
    # began, and how long the provider call took.
    started_at = models.DateTimeField(null=True)
    provider_ms = models.FloatField(null=True)

    # Declared: the bench's settings install this app, the base settings mypy reads do not.
    objects: models.Manager["NaiveOrder"] = models.Manager()

    def __str__(self) -> str:
        return f"naive order {self.pk}"
