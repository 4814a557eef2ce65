"""The invoices and credit notes in the admin: read-only (legal records, never edited), each
with its PDF to download, the file the customer's email carried, and the version of the
invoice template it was rendered from. Who may see them: staff with the model's view
permission, as for every record here. A document deleted at the end of its retention period
answers 404 on its page and its PDF, with why it is gone; one the live invoice template does not
render, 503 with why."""

from typing import Any
from uuid import UUID

from django.contrib import admin
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND
from notifications.documents.pdf import invoice_download, invoice_filename
from notifications.models import EmailTemplateVersion
from orders.invoicing.retention import deleted_reason
from orders.models import DeletedInvoice, Invoice


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

    def get_queryset(self, request: HttpRequest) -> QuerySet[Invoice]:
        # no page here shows the PDF's bytes (its link reads them): a list of 100 would read
        # every one, and a version's PDF may take megabytes
        return super().get_queryset(request).defer("pdf")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # issued by the order's payment, never by hand (a gap-free sequence)

    def has_change_permission(self, request: HttpRequest, obj: Invoice | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Invoice | None = None) -> bool:
        return False  # a legal record: kept for its retention period, then the retention job deletes it

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

    def pdf_view(self, request: HttpRequest, invoice_id: UUID) -> HttpResponse:
        if not self.has_view_permission(request):
            return HttpResponse(status=403)
        invoice = Invoice.objects.filter(pk=invoice_id).first()
        if invoice is not None:
            try:
                return invoice_download(invoice)
            except RenderError as exc:  # a live version that does not render it: staff read why
                return HttpResponse(str(exc), status=503, content_type="text/plain; charset=utf-8")
        deleted = DeletedInvoice.objects.filter(pk=invoice_id).first()
        if deleted is None:
            raise Http404(f"No invoice or credit note has the id {invoice_id}.")
        return self._deleted_page(request, deleted)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """A deleted document's page says why it is gone, rather than Django's redirect home."""
        document_id = _uuid_or_none(object_id)
        deleted = DeletedInvoice.objects.filter(pk=document_id).first() if document_id else None
        if deleted is None or not self.has_view_permission(request):
            return super().change_view(request, object_id, form_url, extra_context)  # Django's answers
        return self._deleted_page(request, deleted)

    def _deleted_page(self, request: HttpRequest, deleted: DeletedInvoice) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": str(deleted),
            "reason": deleted_reason(deleted),
            "deleted": deleted,
        }
        return TemplateResponse(request, "admin/orders/invoice/deleted.html", context, status=404)


def _uuid_or_none(text: str) -> UUID | None:
    try:
        return UUID(text)
    except ValueError:
        return None
