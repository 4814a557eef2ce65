"""The invoices and credit notes in the admin: read-only (legal records, never edited), each
with its PDF to download, the file the customer's email carried, and the version of the
invoice template it was rendered from. Who may see them: staff with the model's view
permission, as for every record here."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from notifications.content.sources import DOCUMENT_KIND
from notifications.documents.pdf import invoice_download, invoice_filename
from notifications.models import EmailTemplateVersion
from orders.models import Invoice


@admin.register(Invoice)
class InvoiceAdmin(admin.ModelAdmin):
    list_display = ["number_text", "kind", "order", "total_minor", "currency", "issued_at", "pdf_link"]
    list_filter = ["kind", "series"]
    search_fields = ["number_text", "order__id", "order__number"]
    fields = readonly_fields = (
        "number_text",
        "kind",
        "series",
        "number",
        "order",
        "issued_at",
        "currency",
        "total_minor",
        "version_number",
        "corrects",
        "refund",
        "locale",
        "email_kind",
        "email_subject_id",
        "pdf_sha256",
        "pdf_rendered_at",
        "pdf_template",
        "data",
        "pdf_link",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # issued by the order's payment, never by hand (a gap-free sequence)

    def has_change_permission(self, request: HttpRequest, obj: Invoice | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Invoice | None = None) -> bool:
        return False  # a legal record: kept for its retention period (docs/personal-data.md)

    @admin.display(description="PDF")
    def pdf_link(self, invoice: Invoice) -> str:
        url = reverse("admin:orders_invoice_pdf", args=[invoice.pk])
        return format_html('<a href="{}">{}</a>', url, invoice_filename(invoice))

    @admin.display(description="PDF template")
    def pdf_template(self, invoice: Invoice) -> str:
        """Which invoice template the stored PDF was rendered from (Invoice.pdf_template_version)."""
        if not invoice.pdf_sha256:
            return "not rendered yet"
        number = invoice.pdf_template_version
        if number is None:
            return "the shipped template"
        versions = EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND, locale=invoice.locale)
        version = versions.filter(number=number).first()
        if version is None:
            return f"version {number} ({invoice.locale})"
        url = reverse("admin:notifications_emailtemplateversion_change", args=[version.pk])
        return format_html('<a href="{}">version {} ({})</a>', url, number, invoice.locale)

    def get_urls(self) -> list[URLPattern]:
        pdf = path(
            "<uuid:invoice_id>/pdf/", self.admin_site.admin_view(self.pdf_view), name="orders_invoice_pdf"
        )
        return [pdf, *super().get_urls()]

    def pdf_view(self, request: HttpRequest, invoice_id: str) -> HttpResponse:
        if not self.has_view_permission(request):
            return HttpResponse(status=403)
        return invoice_download(get_object_or_404(Invoice, pk=invoice_id))
