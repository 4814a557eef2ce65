from django.conf import settings
from django.db import models


class OperatorAction(models.Model):
    """Who did what to which notification or dead letter, when, and with what result.
    Every admin action and every replay or discard writes one."""

    class Action(models.TextChoices):
        RETRY = "retry"
        REJECT = "reject"
        ASSIGN = "assign"
        REPLAY = "replay"
        DISCARD = "discard"
        # The provider's own event proved an email with an unknown outcome was sent.
        SETTLE = "settle", "settled by the provider's evidence"
        SUPPRESS = "suppress", "suppress an address"
        LIFT_SUPPRESSION = "lift_suppression", "lift a suppression"
        TEST_SEND = "test_send", "send a test email"  # manage.py send_test_email: tied to no order
        # A reviewer's decisions that finish an email (operations/review/resolve.py).
        MARK_SENT = "mark_sent", "mark as sent (checked at the provider)"
        RESEND_NEW_KEY = "resend_new_key", "send again under a new key"
        CORRECT_ADDRESS = "correct_address", "correct the address and send again"
        PROVIDER_PAUSE = "provider_pause", "pause the mail provider"
        PROVIDER_RESUME = "provider_resume", "resume the mail provider"
        PROVIDER_FORCE = "provider_force", "send through one mail provider only"
        RESOLVE_MISMATCH = "resolve_mismatch", "close a reconcile mismatch"
        RERUN_DELIVERY = "rerun_delivery", "run a shop platform's delivery again"
        # The shop corrected the customer's address on its platform (intake/apply.py).
        PLATFORM_ADDRESS = "platform_address", "the shop's platform changed the address"

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)  # kept when the user is gone; the OS user for commands
    action = models.CharField(max_length=16, choices=Action.choices)
    notification = models.ForeignKey(
        "notifications.Notification", null=True, blank=True, on_delete=models.SET_NULL, related_name="actions"
    )
    event_id = models.UUIDField(null=True, blank=True)
    comment = models.TextField(blank=True)
    result = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)  # empty: interrupted before its end

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["event_id"], name="operator_action_event_idx")]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.event_id or self.notification_id}: {self.result}"


class RetiredKey(models.Model):
    """An idempotency key a notification had before a reviewer sent it again under a new one.
    The provider's events about an email sent under it still find the notification."""

    notification = models.ForeignKey(
        "notifications.Notification", on_delete=models.CASCADE, related_name="retired_keys"
    )
    key = models.CharField(max_length=64, unique=True)
    version = models.PositiveSmallIntegerField()
    first_attempt = models.PositiveIntegerField()  # the attempts numbered from here went out under it
    retired_at = models.DateTimeField()
    action = models.ForeignKey(OperatorAction, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["notification", "version"]

    def __str__(self) -> str:
        return f"key v{self.version} of notification {self.notification_id}"


class AddressCorrection(models.Model):
    """An order's address was changed (a mistyped one): by a reviewer before sending again, or
    by the shop on its platform (notifications/address_change.py)."""

    order = models.ForeignKey("orders.Order", on_delete=models.CASCADE, related_name="address_corrections")
    previous_address = models.EmailField(max_length=254)
    new_address = models.EmailField(max_length=254)
    action = models.ForeignKey(OperatorAction, on_delete=models.PROTECT, related_name="+")
    corrected_at = models.DateTimeField()

    class Meta:
        ordering = ["-corrected_at"]

    def __str__(self) -> str:
        return f"address of order {self.order_id} corrected at {self.corrected_at:%Y-%m-%d %H:%M}"
