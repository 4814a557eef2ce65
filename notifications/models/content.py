from django.conf import settings
from django.db import models


class EmailTemplateVersion(models.Model):
    """One version of an email's wording written in the admin, for one kind and language.
    Versions are never edited: a change is a new version. At most one per kind and language
    is live (published and not retired); with none live, the shipped templates are used.
    A notification keeps the bytes it was first rendered with, whatever is published later.
    The invoices' and credit notes' PDF template is one more kind ("invoice_document",
    content/sources.py), of its `html` alone; a document keeps its PDF the same way."""

    kind = models.CharField(max_length=32)  # a Notification.Kind
    locale = models.CharField(max_length=8)
    number = models.PositiveIntegerField()  # 1, 2, ... per kind and language
    subject = models.TextField()
    text = models.TextField()
    html = models.TextField()
    comment = models.TextField(blank=True)  # why the wording changed
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by_name = models.CharField(max_length=150)  # kept when the user is gone
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    published_by_name = models.CharField(max_length=150, blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)  # replaced, or back to the shipped one
    retired_by_name = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["kind", "locale", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "locale", "number"], name="email_template_unique_number"),
            models.UniqueConstraint(
                fields=["kind", "locale"],
                condition=models.Q(published_at__isnull=False, retired_at__isnull=True),
                name="email_template_one_live",
            ),
        ]
        # The invoice template lays out a legal record: its own rights, apart from the emails'
        # wording's (add_ and publish_emailtemplateversion), so neither editor gets the other's.
        permissions = [
            ("publish_emailtemplateversion", "Can publish and retire email wording"),
            ("change_invoice_template", "Can write new versions of the invoice template"),
            ("publish_invoice_template", "Can publish and retire the invoice template"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} ({self.locale}) v{self.number}: {self.state}"

    @property
    def state(self) -> str:
        if self.retired_at is not None:
            return "retired"
        return "live" if self.published_at is not None else "draft"
