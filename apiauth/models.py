import uuid

from django.conf import settings
from django.contrib.postgres.functions import RandomUUID
from django.db import models


class ApiToken(models.Model):
    """A bearer token for the order API. Only its SHA-256 is stored: a leaked database
    does not leak working tokens."""

    name = models.CharField(max_length=100)
    # The client the token speaks for. A client's successive tokens share it (a token made with
    # `create_api_token --successor-of` or `--replace`), so a rotation keeps the client's orders
    # within its reach; a token of another client never reaches them.
    client = models.UUIDField(default=uuid.uuid4, db_default=RandomUUID(), db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the token, so a person can tell tokens apart in the admin.
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # Set once by `api_tokens_revoke`, with its ApiTokenRevocation; never cleared (the admin
    # shows it read-only, and authentication also refuses a token with a revocation record).
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        permissions = [("revoke_apitoken", "Can revoke an API token")]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "active"
        return f"{self.name} ({self.prefix}…, {state})"

    # DRF treats request.auth as the token and request.user as the principal; a token is both.
    @property
    def is_authenticated(self) -> bool:
        return True


class ApiTokenRateWindow(models.Model):
    """How many requests a token made in its current fixed window: one row per token, reset
    in place when a new window starts, so the table never grows and needs no clean-up job."""

    token = models.OneToOneField(ApiToken, primary_key=True, on_delete=models.CASCADE, related_name="+")
    window_start = models.DateTimeField()
    request_count = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.token_id}: {self.request_count} since {self.window_start:%H:%M:%S}"


class ApiTokenRevocation(models.Model):
    """Who revoked a token, when, and from where. Kept here, not in the admin's LogEntry: a
    revocation from the command line has no Django user to name, LogEntry rows go with their
    user, and authentication can read this row (a token with one never works again)."""

    class Via(models.TextChoices):
        ADMIN = "admin", "the admin's Revoke action"
        COMMAND = "command", "manage.py revoke_api_token or create_api_token --replace"
        EARLIER = "earlier", "before revocations were recorded"

    # One per token (a database constraint); a token with one cannot be deleted.
    token = models.OneToOneField(ApiToken, on_delete=models.PROTECT, related_name="revocation")
    token_name = models.CharField(max_length=100)  # as it was called when it was revoked
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)  # kept when the user is gone; the OS user for commands
    via = models.CharField(max_length=16, choices=Via.choices)
    revoked_at = models.DateTimeField()

    class Meta:
        ordering = ["-revoked_at"]

    def __str__(self) -> str:
        return f"{self.token_name} revoked by {self.actor_name} ({self.via}) {self.revoked_at:%Y-%m-%d}"
