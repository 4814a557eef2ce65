from django.db import models


class ApiToken(models.Model):
    """A bearer token for the order API. Only its SHA-256 is stored: a leaked database
    does not leak working tokens."""

    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the token, so a person can tell tokens apart in the admin.
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

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
