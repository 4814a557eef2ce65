import uuid

from django.db import models

from orders.models.order import Order
from orders.models.refunds import Refund

# An invoice is a bookkeeping record: kept this long after the year of its issue (the longest
# of the EU's periods, Germany's §147 AO and §14b UStG), whatever the customer's erasure does.
RETENTION_YEARS = 10


class InvoiceSequence(models.Model):
    """The next number of one series of invoices and credit notes: one series per connected
    shop, one for the orders placed through the API. Taken in the transaction that stores the
    document (orders/invoices.py), so a number is never skipped nor given twice."""

    series = models.CharField(max_length=64, primary_key=True)  # "shop-<uuid>" or "api"
    next_number = models.PositiveBigIntegerField(default=1)

    def __str__(self) -> str:
        return f"{self.series}: next {self.next_number}"


class Invoice(models.Model):
    """An invoice or a credit note, as issued: its number and everything its PDF shows (the
    seller, the customer, each line with its VAT rate and amount, the totals per rate), frozen
    at issue in `data`. A legal record: never edited, never deleted with the order's personal
    data, deleted only once its retention period is over (orders/invoicing/retention.py,
    docs/personal-data.md). Its PDF is rendered once and kept byte for byte, so every email
    and download carries the same file."""

    class Kind(models.TextChoices):
        INVOICE = "invoice", "Invoice"
        CREDIT_NOTE = "credit_note", "Credit note"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="invoices")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    series = models.CharField(max_length=64)
    number = models.PositiveBigIntegerField()
    number_text = models.CharField(max_length=80)  # as printed: the prefix and the number
    issued_at = models.DateTimeField()
    currency = models.CharField(max_length=3)
    total_minor = models.BigIntegerField()  # gross; negative for a credit note
    # The order's content version it bills (OrderVersion.number); NULL for a short-body order.
    version_number = models.PositiveIntegerField(null=True, blank=True)
    # A credit note: the invoice it corrects, and the refund it answers (if any).
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    refund = models.ForeignKey(Refund, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    locale = models.CharField(max_length=8)
    data = models.JSONField()
    # The email that carries it (a Notification.Kind, and its subject id when the order has
    # several of that kind); blank: none, it is served by the API and the admin only.
    email_kind = models.CharField(max_length=32, blank=True)
    email_subject_id = models.UUIDField(null=True, blank=True)
    pdf = models.BinaryField(null=True, blank=True)
    pdf_sha256 = models.CharField(max_length=64, blank=True)
    pdf_rendered_at = models.DateTimeField(null=True, blank=True)
    # Which invoice template the PDF was rendered from: the number of the version published in
    # the admin for its language (notifications' template versions, kind "invoice_document"),
    # or NULL for the shipped template (and while it is not rendered yet). A number, not a key:
    # the versions are a layer above the orders (notifications/), as on the admin's list.
    pdf_template_version = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["issued_at", "number"]
        # The worker's look for PDFs to render before its claim (a batch of refund, change or
        # invoice emails): only the few documents not rendered yet are indexed.
        indexes = [
            models.Index(
                fields=["email_subject_id"],
                condition=models.Q(pdf_sha256=""),
                name="invoice_unrendered_subject_idx",
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["series", "number"], name="invoice_unique_number"),
            models.UniqueConstraint(
                fields=["order"],
                condition=models.Q(kind="invoice", corrects__isnull=True, version_number__isnull=True),
                name="invoice_one_per_short_order",
            ),
            models.UniqueConstraint(
                fields=["order", "version_number"],
                condition=models.Q(kind="invoice"),
                name="invoice_one_per_version",
            ),
            models.UniqueConstraint(
                fields=["refund"], condition=models.Q(refund__isnull=False), name="credit_note_one_per_refund"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.number_text}"


class DeletedInvoice(models.Model):
    """An invoice or a credit note the retention job deleted once its period was over: which
    document it was, never what it showed. A download or an email that still names it is
    answered with why there is none, and an auditor sees that a number missing from a series
    was a document kept its full period, not one skipped or removed by hand."""

    id = models.UUIDField(primary_key=True, editable=False)  # the deleted document's own
    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=16, choices=Invoice.Kind.choices)
    series = models.CharField(max_length=64)
    number = models.PositiveBigIntegerField()
    number_text = models.CharField(max_length=80)
    issued_at = models.DateTimeField()
    deleted_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["series", "number"], name="deleted_invoice_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.number_text} (deleted {self.deleted_at:%Y-%m-%d})"


class VoidedInvoiceNumbers(models.Model):
    """A run of a series' numbers given to no document here, on purpose: after a database
    restore to an earlier point the counter went back, yet documents issued after the restore
    point had already been emailed with those numbers. The counter is moved past them
    (orders/invoicing/voiding.py) so none is given to a second document, and this row tells
    an auditor why the series skips them."""

    series = models.CharField(max_length=64)
    first = models.PositiveBigIntegerField()
    last = models.PositiveBigIntegerField()
    reason = models.TextField()  # as the operator wrote it: "restore of 2026-12-06"
    voided_by = models.CharField(max_length=150)  # the operating-system user, or --actor
    voided_at = models.DateTimeField()

    class Meta:
        ordering = ["series", "first"]
        verbose_name = "voided run of invoice numbers"
        verbose_name_plural = "voided invoice numbers"  # not Django's "numberss"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(first__lte=models.F("last")), name="voided_numbers_a_run"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.series}: {self.first}-{self.last} voided ({self.reason})"
