from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models.functions import Lower


class ProviderEvent(models.Model):
    """One delivery event a provider posted to our webhook, stored once (unique by the
    provider's event id) and applied by a task (notifications/tracking/apply.py)."""

    class Kind(models.TextChoices):
        SENT = "sent"  # the provider accepted it (proves an unknown outcome was sent)
        DELIVERY_DELAYED = "delivery_delayed", "delivery delayed"
        DELIVERED = "delivered"
        BOUNCED = "bounced"
        COMPLAINED = "complained"

    id = models.UUIDField(primary_key=True)
    provider = models.CharField(max_length=32)
    provider_event_id = models.CharField(max_length=255)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    occurred_at = models.DateTimeField()
    provider_message_id = models.CharField(max_length=255, blank=True)
    idempotency_key = models.CharField(max_length=64, blank=True)  # ours, from the send's tag
    recipient = models.CharField(max_length=254, blank=True)
    # Its keyed hash: an event about an erased email is stored without the address, and this
    # tells whether it names the address that email went to (notifications/tracking/apply.py).
    recipient_hash = models.CharField(max_length=64, blank=True, default="", db_default="")
    hard_bounce = models.BooleanField(default=False)  # a soft bounce does not suppress
    description = models.TextField(blank=True)  # the provider's words, e.g. why it bounced
    payload = models.JSONField()  # what the provider posted, for the person who checks
    received_at = models.DateTimeField(auto_now_add=True)
    notification = models.ForeignKey(
        "notifications.Notification",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="provider_events",
    )
    applied_at = models.DateTimeField(null=True, blank=True)
    result = models.TextField(blank=True)  # what applying it did, in words

    class Meta:
        ordering = ["-received_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "provider_event_id"], name="provider_event_unique_id"
            ),
        ]
        indexes = [
            models.Index(fields=["idempotency_key"], name="provider_event_key_idx"),
            # For the retention job's range delete (rows arrive in received_at order).
            BrinIndex(fields=["received_at"], name="provider_event_received_brin"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.kind} {self.provider_event_id}"


class Suppression(models.Model):
    """An address we no longer send to: it bounced hard or its owner complained. A reviewer
    may lift it (audited); a lifted row stays as history."""

    class Reason(models.TextChoices):
        BOUNCED = "bounced"
        COMPLAINED = "complained"

    # Empty once the address's owner had it erased: the keyed hash (infra/keyed_hash.py) stays
    # and keeps the address suppressed. A row holding its address is matched by it too: one of
    # an earlier release has no hash, or one of an earlier rule until personal_data_rehash.
    address = models.EmailField(max_length=254, blank=True)
    address_hash = models.CharField(max_length=64, blank=True, db_default="")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    detail = models.TextField(blank=True)  # the provider's words
    provider_event = models.ForeignKey(ProviderEvent, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    lift_comment = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One active suppression per address, whatever its case: by its hash where the row
            # has one, by its address where it has none (a row of an earlier release). Not by
            # lower() of every address: it makes two addresses one (ada@İstanbul.com is
            # ada@istanbul.com to it), and the second's bounce could not be kept.
            models.UniqueConstraint(
                Lower("address"),
                condition=models.Q(lifted_at__isnull=True, address_hash="") & ~models.Q(address=""),
                name="suppression_one_active",
            ),
            models.UniqueConstraint(
                "address_hash",
                condition=models.Q(lifted_at__isnull=True) & ~models.Q(address_hash=""),
                name="suppression_one_active_hash",
            ),
        ]
        indexes = [
            # The claim's read and the address's look-up find a row by its address too.
            models.Index(
                Lower("address"),
                condition=models.Q(lifted_at__isnull=True) & ~models.Q(address=""),
                name="suppression_active_address",
            ),
        ]
        permissions = [("lift_suppression", "Can lift an address suppression")]

    def __str__(self) -> str:
        state = "lifted" if self.lifted_at else "active"
        return f"{self.address or 'an erased address'} {self.reason} ({state})"


class ProviderCircuit(models.Model):
    """Whether workers may call a mail provider, shared by every worker on every host
    (notifications/delivery/circuit.py). No row: closed, nothing failed lately."""

    class State(models.TextChoices):
        CLOSED = "closed", "closed: calls go out"
        OPEN = "open", "open: calls wait until the next probe"
        HALF_OPEN = "half_open", "half open: one probe call is out"
        PAUSED = "paused", "paused by an operator"

    provider = models.CharField(max_length=32, primary_key=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.CLOSED)
    failures = models.PositiveIntegerField(default=0)  # transient failures in a row
    opened_at = models.DateTimeField(null=True, blank=True)
    retry_at = models.DateTimeField(null=True, blank=True)  # open: when a probe may go
    probe_until = models.DateTimeField(null=True, blank=True)  # half open: the probe's lease
    paused_by = models.CharField(max_length=150, blank=True)
    paused_reason = models.TextField(blank=True)
    # Since when it takes no emails (its circuit left closed, or it was paused), through every
    # probe of an outage; NULL while closed. With a fallback, since when the fallback sends.
    down_since = models.DateTimeField(null=True, blank=True)
    # When it last closed after being down (NULL: never down): since when it sends again.
    up_since = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The admin's "Mail provider" page (operations/mail_provider/) and `manage.py provider`.
        permissions = [("pause_provider", "Can pause and resume the mail provider")]

    def __str__(self) -> str:
        return f"{self.provider}: {self.state}"


class ProviderRateBucket(models.Model):
    """The token bucket of MAIL_PROVIDER_RATE_LIMIT, shared by every worker on every host
    (notifications/delivery/rate_limit.py): tokens refill at the limit, one per call."""

    provider = models.CharField(max_length=32, primary_key=True)
    tokens = models.FloatField()
    refreshed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.provider}: {self.tokens:.1f} tokens"
