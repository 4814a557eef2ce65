import uuid

from django.conf import settings
from django.db import models


class Notification(models.Model):
    """One customer email, from the moment the order is committed to its final state."""

    class Kind(models.TextChoices):
        ORDER_CONFIRMATION = "order_confirmation", "Order confirmation"
        ORDER_CANCELLATION = "order_cancellation", "Order cancellation"
        ORDER_SHIPMENT = "order_shipment", "Shipment"
        ORDER_REFUND = "order_refund", "Refund"
        ORDER_EDIT = "order_edit", "Order changed"  # one per change of what the order holds
        # An invoice issued after the confirmation (its payment came later), which it carries.
        ORDER_INVOICE = "order_invoice", "Invoice"
        # A parcel's news (orders/parcel_progress.py), each at most once per parcel; "in transit"
        # only while settings PARCEL_IN_TRANSIT_EMAIL is on.
        PARCEL_IN_TRANSIT = "parcel_in_transit", "In transit"
        PARCEL_OUT_FOR_DELIVERY = "parcel_out_for_delivery", "Out for delivery"
        PARCEL_DELIVERED = "parcel_delivered", "Delivered"
        PARCEL_DELIVERY_FAILED = "parcel_delivery_failed", "Delivery attempt failed"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        SENDING = "sending", "sending"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"
        NEEDS_REVIEW = "needs_review", "needs review"
        SKIPPED = "skipped", "skipped"
        REJECTED = "rejected", "rejected"

    class DeliveryStatus(models.TextChoices):
        """What the provider's events said after it accepted the email (notifications/tracking/).
        Ordered: a state only moves to a later one, whatever order the events arrive in."""

        NONE = "", "no event yet"
        DELIVERY_DELAYED = "delivery_delayed", "delivery delayed"
        DELIVERED = "delivered", "delivered"
        BOUNCED = "bounced", "bounced"
        COMPLAINED = "complained", "complained"

    # The groupings every screen, command and job uses; never restated elsewhere.
    UNFINISHED_STATUSES = (Status.PENDING, Status.SENDING)
    FINAL_STATUSES = (Status.SENT, Status.FAILED, Status.NEEDS_REVIEW, Status.SKIPPED, Status.REJECTED)
    NEEDS_PERSON_STATUSES = (Status.FAILED, Status.NEEDS_REVIEW)  # waiting for a reviewer's decision
    DONE_STATUSES = (Status.SENT, Status.SKIPPED, Status.REJECTED)  # nothing left to send or decide

    order = models.ForeignKey("orders.Order", on_delete=models.PROTECT, related_name="notifications")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    # What the email is about when an order has several of its kind: the shipment or the refund
    # (its event's aggregate id). NULL for the order's own emails, one of each kind per order.
    subject_id = models.UUIDField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    # Sent to the provider on every attempt: the provider's dedupe is what makes a resend
    # after a lost answer safe. Derived from (kind, order, key_version), so it changes only
    # when a reviewer sends the email again under a new key (operations/review/resolve.py);
    # the keys it had before are kept (RetiredKey) for the provider's late events. Unique by
    # a constraint in Meta, not `unique=True`, which would add a second index for LIKE.
    idempotency_key = models.CharField(max_length=64)
    key_version = models.PositiveSmallIntegerField(default=1, db_default=1)
    # The first attempt made under the current key: earlier attempts went out under a retired
    # key, so their unknown outcomes do not make a resend under this one uncertain.
    key_first_attempt = models.PositiveIntegerField(default=1, db_default=1)
    provider_message_id = models.CharField(max_length=255, blank=True)
    attempt_count = models.PositiveIntegerField(default=0)
    first_attempt_at = models.DateTimeField(null=True, blank=True)
    # Who is calling the provider right now and until when; another delivery of the same
    # event waits instead of sending in parallel.
    lease_owner = models.CharField(max_length=100, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    error_class = models.CharField(max_length=32, blank=True)
    last_error = models.TextField(blank=True)  # in plain words, for the person reviewing it
    last_error_detail = models.TextField(blank=True)  # the technical detail
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # a partial index in Meta: only the few emails with a reviewer
    )
    reviewer_comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    status_changed_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    provider = models.CharField(
        max_length=32, blank=True
    )  # who was called last (MAIL_PROVIDER or its fallback)
    delivery_status = models.CharField(max_length=16, choices=DeliveryStatus.choices, blank=True, default="")
    delivery_status_at = models.DateTimeField(null=True, blank=True)  # when the provider saw it
    delivery_detail = models.TextField(blank=True)  # e.g. the bounce message, in the provider's words
    # An unknown outcome waits this long for the provider's event that settles it; after that
    # it is a person's (the admin shows the deadline).
    evidence_deadline = models.DateTimeField(null=True, blank=True)
    # The email as first rendered (notifications/content/snapshot.py): every later attempt,
    # replay and resend sends exactly these bytes, so the provider never sees a changed body
    # under the same key. Empty until the first attempt.
    # Database defaults too: a process of the previous release, during a rolling deploy, creates
    # notifications with an INSERT that does not name these columns.
    email_locale = models.CharField(max_length=8, blank=True, default="", db_default="")
    # Its From: MAIL_FROM_ADDRESS, or its connected shop's sender; empty for an email rendered
    # before the sender was kept, which goes out from MAIL_FROM_ADDRESS.
    email_from = models.CharField(max_length=254, blank=True, default="", db_default="")
    email_subject = models.TextField(blank=True, default="", db_default="")
    email_text = models.TextField(blank=True, default="", db_default="")
    email_html = models.TextField(blank=True, default="", db_default="")
    email_content_hash = models.CharField(
        max_length=64, blank=True, default="", db_default=""
    )  # sha256 of the three parts
    email_rendered_at = models.DateTimeField(null=True, blank=True)
    # The documents it carries (an invoice's PDF: notifications/documents/), named with their
    # sha256 in the snapshot: each attempt attaches those bytes. [{"invoice", "filename",
    # "sha256", "size"}]
    email_attachments = models.JSONField(default=list, blank=True, db_default=[])
    # The admin override it was rendered from; empty: the shipped templates.
    email_template = models.ForeignKey(
        "notifications.EmailTemplateVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,  # a partial index in Meta: only the emails rendered from an override
    )

    # The version of the order's content (orders.OrderVersion) its event saw, taken when the
    # event was recorded: the email shows that version, whatever the order became before the
    # first attempt. NULL for an order placed with the short body (it has no content), and for
    # notifications created by a process of the previous release.
    content_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["order", "kind"],
                condition=models.Q(subject_id__isnull=True),
                name="notification_unique_order_kind_once",
            ),
            models.UniqueConstraint(
                fields=["kind", "subject_id"],
                condition=models.Q(subject_id__isnull=False),
                name="notification_unique_kind_subject",
            ),
            models.UniqueConstraint(fields=["idempotency_key"], name="notification_unique_idempotency_key"),
        ]
        # Every status change writes a new version of the row into each index whose
        # predicate it meets (the status is indexed, so no update is a HOT one): an index
        # only where a lookup uses it, and partial where only a few rows have the value.
        indexes = [
            models.Index(fields=["status", "status_changed_at"], name="notification_status_idx"),
            # A provider event without our key finds its email by the provider's message id.
            models.Index(fields=["provider_message_id"], name="notification_message_id_idx"),
            # A reviewer's emails; deleting a user or an override finds its emails.
            models.Index(
                fields=["owner"], condition=models.Q(owner__isnull=False), name="notification_owner_idx"
            ),
            models.Index(
                fields=["email_template"],
                condition=models.Q(email_template__isnull=False),
                name="notification_template_idx",
            ),
        ]
        permissions = [("review_notification", "Can retry, reject and assign notifications")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} for {self.order_id}: {self.status}"

    @property
    def event_aggregate_id(self) -> uuid.UUID:
        """What its events are about: the shipment for a shipment's email, else the order."""
        return self.subject_id or self.order_id


class DeliveryAttempt(models.Model):
    """One call to the mail provider. Written before the call and completed after it: an
    attempt with a start and no finish is a call whose outcome nobody saw."""

    class Outcome(models.TextChoices):
        ACCEPTED = "accepted"
        TRANSIENT = "transient"
        PERMANENT = "permanent"
        UNKNOWN = "unknown"
        IN_FLIGHT = "in_flight", "In flight"
        KEY_CONFLICT = "key_conflict", "Key conflict"
        ACCEPTED_EARLIER = "accepted_earlier", "Accepted earlier"

    # No index of its own: the unique (notification, number) below leads with it.
    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="attempts", db_index=False
    )
    event_id = models.UUIDField()
    number = models.PositiveIntegerField()
    worker = models.CharField(max_length=100)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    provider_message_id = models.CharField(max_length=255, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    # The address this call sent to: the order's, read under its lock at the claim. A reviewer
    # may correct the order's address later; a provider's late event about this call must
    # still act on the address that call used (notifications/tracking/sends.py). Empty on
    # attempts from before it was stored: then the order's address, which a correction
    # writes here first (operations/review/resolve.py). A database default too: a
    # worker of the previous release, during a rolling deploy, inserts without naming it.
    recipient = models.EmailField(max_length=254, blank=True, default="", db_default="")
    # Its keyed hash (infra/keyed_hash.py), which stays when the customer's erasure blanks the
    # address: a complaint or a hard bounce that comes after still suppresses the address this
    # call went to. Empty on attempts from before it was stored: then the recipient's hash.
    recipient_hash = models.CharField(max_length=64, blank=True, default="", db_default="")
    # Which provider this call went to (its name, as ProviderCircuit's): an email whose outcome
    # is unknown at one provider is never moved to the other (delivery/routing.py). Empty on
    # attempts from before a fallback existed: the email's `provider` then.
    provider = models.CharField(max_length=32, blank=True, default="", db_default="")

    class Meta:
        ordering = ["notification", "number"]
        constraints = [
            models.UniqueConstraint(fields=["notification", "number"], name="attempt_unique_number"),
        ]

    def __str__(self) -> str:
        """In words, as the email's page lists it: "Attempt 1 — permanent, 3 ms, app1 pid 21008"."""
        outcome = self.get_outcome_display().lower() if self.outcome else "no answer seen"
        duration = f", {self.duration_ms} ms" if self.duration_ms is not None else ""
        host, _, pid = self.worker.rpartition(":")
        worker = f"{host} pid {pid}" if host and pid.isdigit() else self.worker
        return f"Attempt {self.number} — {outcome}{duration}, {worker}"
