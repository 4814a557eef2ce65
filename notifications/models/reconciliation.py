from django.conf import settings
from django.db import models


class ReconcileReport(models.Model):
    """One run of the reconcile job: what it found and what it repaired."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    summary = models.TextField()  # in plain words, for the admin list
    findings = models.JSONField()
    repaired = models.JSONField(default=dict)
    # Per day, email kind and currency: what was accepted against what reached its end
    # (operations/reconciliation/ledger.py).
    ledger = models.JSONField(default=list, db_default=[])

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"reconcile {self.started_at:%Y-%m-%d %H:%M}: {self.summary}"


class ReconcileMismatch(models.Model):
    """One thing the reconciliation found that does not add up, with the reviewer who owns it
    and the day it is due. Found again by the next run, it stays one row; gone by itself (the
    email was sent after all), the run closes it; a person closes it with a comment."""

    class Problem(models.TextChoices):
        MISSING_EMAIL = "missing_email", "accepted order without its email"
        STUCK = "stuck", "email unfinished for too long"
        WAITING_FOR_PERSON = "waiting_for_person", "email waiting for a reviewer"
        NO_PROVIDER_EVIDENCE = "no_provider_evidence", "sent, but the provider reported nothing"
        PROVIDER_SENT_UNSENT = (
            "provider_sent_unsent",
            "the provider reports an email we did not count as sent",
        )
        PROVIDER_UNKNOWN_KEY = "provider_unknown_key", "the provider reports an email we have no record of"
        # The invoices' (operations/reconciliation/invoice_findings.py), for the bookkeeping.
        MISSING_INVOICE = "missing_invoice", "order without the invoice it should have"
        UNSETTLED_DOCUMENTS = (
            "unsettled_documents",
            "an order's invoices and credit notes do not add up to what it owes",
        )
        INVOICE_NUMBERING = "invoice_numbering", "an invoice series with a gap or a number twice"

    problem = models.CharField(max_length=32, choices=Problem.choices)
    # What it is about, unique among the open ones: "<order id>:<kind>", "provider-event:<id>",
    # "<order id>:invoice", "<order id>:documents" or "invoice-series:<series>".
    subject = models.CharField(max_length=100)
    # The day the order was accepted (its invoice due, or the provider's event came, or the series
    # found broken).
    day = models.DateField()
    kind = models.CharField(max_length=32, blank=True)  # the email kind, when there is one
    order = models.ForeignKey(
        "orders.Order", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    notification = models.ForeignKey(
        "notifications.Notification", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    provider_event = models.ForeignKey(
        "notifications.ProviderEvent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    amount = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    detail = models.TextField()  # in plain words: what is wrong and where to look
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    due_at = models.DateTimeField()
    first_found_at = models.DateTimeField()
    last_found_at = models.DateTimeField()
    report = models.ForeignKey(
        ReconcileReport, null=True, on_delete=models.SET_NULL, related_name="mismatches"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolution = models.TextField(blank=True)  # the person's comment, or what the run saw

    class Meta:
        ordering = [models.F("resolved_at").asc(nulls_first=True), "due_at"]  # open ones first
        verbose_name_plural = "reconcile mismatches"
        constraints = [
            models.UniqueConstraint(
                fields=["problem", "subject"],
                condition=models.Q(resolved_at__isnull=True),
                name="reconcile_mismatch_one_open",
            ),
        ]
        indexes = [models.Index(fields=["owner", "resolved_at"], name="reconcile_mismatch_owner_idx")]

    def __str__(self) -> str:
        return f"{self.get_problem_display()}: {self.subject}"
