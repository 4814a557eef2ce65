"""An invoice's or a credit note's PDF: rendered with WeasyPrint from the invoice template
(template.py: the version published in the admin for the document's language, else the
shipped notifications/documents/invoice.html), in the document's language, from the data
frozen at its issue (orders/invoicing/), then stored with its sha256 and the template version
it used. The first render stored wins (a conditional UPDATE), so every email attempt, resend
and download carries one file, the same bytes under the same idempotency key, whatever was
deployed or published in between."""

import hashlib
import time
from dataclasses import dataclass

from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.http import content_disposition_header

from notifications.content.errors import RenderError
from notifications.documents.template import LayoutInterrupted, document_pdf, document_source
from orders.models import Invoice

CONTENT_TYPE = "application/pdf"
# A document's render that failed is remembered by the process for a while, with the template it
# failed with, and not tried again: each try costs a layout up to the child's CPU limit, and an
# API client asking again and again (its throttle allows several a second), or an email's claim
# after its batch's render, would pay it for the same answer. Another template
# made live (or the shipped one) is tried at once. Only a failure the template gives at every
# try is remembered: one of the moment (the child past its wall-clock bound on a busy machine,
# killed from outside, not started: template.LayoutInterrupted) would refuse for this long a
# document the next try lays out.
RENDER_FAILURE_MEMORY_SECONDS = 600
_RENDER_FAILURES_KEPT = 1000  # then forgotten all at once: a bound, not an eviction policy
_render_failures: dict[tuple[str, int | None], tuple[float, str]] = {}


def invoice_pdf(invoice: Invoice) -> bytes:
    """The document's PDF: the stored one, else rendered now and stored. Renders of one document
    take turns on its row (the second reads what the first stored), so it is rendered once."""
    if invoice.pdf_sha256 and invoice.pdf is not None:
        return bytes(invoice.pdf)
    with transaction.atomic():
        locked = Invoice.objects.select_for_update().only("pdf", "pdf_sha256").get(pk=invoice.pk)
        if not locked.pdf_sha256 or locked.pdf is None:
            rendered = invoice_pdf_render(invoice)
            Invoice.objects.filter(pk=invoice.pk).update(
                pdf=rendered.pdf,
                pdf_sha256=hashlib.sha256(rendered.pdf).hexdigest(),
                pdf_rendered_at=timezone.now(),
                pdf_template_version=rendered.template_version,
            )
    invoice.refresh_from_db(fields=["pdf", "pdf_sha256", "pdf_rendered_at", "pdf_template_version"])
    assert invoice.pdf is not None  # stored above, or by the render that came first
    return bytes(invoice.pdf)


def invoices_render_pending(invoices: QuerySet[Invoice]) -> int:
    """Render and store the PDFs of these documents not rendered yet, each in its own short
    transaction: the worker does it before its claim, so no order stays locked by a render."""
    pending = list(invoices.filter(pdf_sha256="").defer("pdf"))  # what renders it, not its bytes
    for document in pending:
        invoice_pdf(document)
    return len(pending)


def invoice_filename(invoice: Invoice) -> str:
    """Its number, as a file name: a number printed with a slash ("2026/INV-000001", common in
    the EU) has a dash there instead."""
    return f"{invoice.number_text.replace('/', '-')}.pdf"


def invoice_download(invoice: Invoice) -> HttpResponse:
    """The PDF as a download, the API's and the admin's: its name escaped by Django's own header
    builder, whatever the number's prefix holds; kept by no cache (it holds the customer's name,
    address and purchases)."""
    response = HttpResponse(invoice_pdf(invoice), content_type=CONTENT_TYPE)
    response["Content-Disposition"] = content_disposition_header(True, invoice_filename(invoice)) or ""
    response["X-Content-Type-Options"] = "nosniff"
    patch_cache_control(response, private=True, no_store=True)
    return response


@dataclass(frozen=True)
class RenderedDocument:
    pdf: bytes
    template_version: int | None  # the number of the admin's version it used; None: the shipped one


def invoice_pdf_render(invoice: Invoice) -> RenderedDocument:
    """Render from today's template without storing. Raises RenderError (a published template
    that does not render this document, leaves out what it must show or lays it out past the
    child's limits, say so as an email's wording would); a failure is remembered (below)."""
    source = document_source(invoice)
    failure = (str(invoice.pk), source.version.pk if source.version is not None else None)
    failed_at, reason = _render_failures.get(failure, (None, ""))
    ago = time.monotonic() - failed_at if failed_at is not None else RENDER_FAILURE_MEMORY_SECONDS
    if ago < RENDER_FAILURE_MEMORY_SECONDS:
        raise RenderError(f"{reason} (Not tried again: it failed with this template {ago:.0f} s ago.)")
    try:
        pdf = document_pdf(source, invoice)
    except LayoutInterrupted:
        raise  # not the template's doing: the next try may lay it out
    except RenderError as exc:
        if len(_render_failures) >= _RENDER_FAILURES_KEPT:
            _render_failures.clear()
        _render_failures[failure] = (time.monotonic(), str(exc))
        raise
    return RenderedDocument(pdf, source.version.number if source.version is not None else None)
