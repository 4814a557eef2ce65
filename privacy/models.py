from django.conf import settings
from django.db import models


class Erasure(models.Model):
    """One customer's personal data erased at their request: by whom, when, how, and what it
    changed, recorded without the address (its keyed hash, infra/keyed_hash.py, which tells
    an address asked about again from any other)."""

    class Via(models.TextChoices):
        COMMAND = "command", "manage.py customer_erase"
        ADMIN = "admin", "the admin"
        API = "api", "the API"
        PLATFORM = "platform", "the shop's platform (a privacy webhook)"

    address_hash = models.CharField(max_length=64, db_index=True)
    via = models.CharField(max_length=16, choices=Via.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)  # the OS user for the command, the token's name for the API
    # For an erasure through the API, the client whose token asked (ApiToken.client): it reached
    # that client's orders only, and only that client's export lists it. NULL for the others.
    client = models.UUIDField(null=True, blank=True)
    changed = models.JSONField(default=dict)  # rows changed by kind: {"orders": 2, "emails": 5, …}
    erased_at = models.DateTimeField()

    class Meta:
        ordering = ["-erased_at"]
        # The admin's page "A customer's personal data" (privacy/admin_views.py): each button
        # its own permission, as an export hands over what an erasure takes away.
        permissions = [
            ("erase_customer", "Can erase a customer's personal data"),
            ("export_customer", "Can export a customer's personal data"),
        ]

    def __str__(self) -> str:
        return f"erasure {self.pk} by {self.actor_name} at {self.erased_at:%Y-%m-%d %H:%M}"


class Export(models.Model):
    """One customer's data handed out (privacy/export.py): by whom, when, how, recorded without
    the address (its keyed hash): a disclosure of personal data is accounted for as an
    erasure is. The counts made for the admin's erasure confirmation are not exports."""

    address_hash = models.CharField(max_length=64, db_index=True)
    via = models.CharField(max_length=16, choices=Erasure.Via.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)
    orders = models.PositiveIntegerField()  # how many orders the document held
    exported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-exported_at"]

    def __str__(self) -> str:
        return f"export {self.pk} by {self.actor_name} at {self.exported_at:%Y-%m-%d %H:%M}"
