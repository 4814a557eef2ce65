"""An invoice's or a credit note's PDF: rendered from the HTML template
notifications/documents/invoice.html with WeasyPrint, in the document's language, from the data
frozen at its issue (orders/invoicing/), then stored with its sha256. The first render stored
wins (a conditional UPDATE), so every email attempt, resend and download carries one file, the
same bytes under the same idempotency key, whatever was deployed in between."""

import hashlib
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.http import content_disposition_header

from notifications.content.formatting import money_format
from orders.content import minor_to_amount
from orders.models import Invoice

TEMPLATE = "notifications/documents/invoice.html"
CONTENT_TYPE = "application/pdf"


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
                pdf=rendered, pdf_sha256=hashlib.sha256(rendered).hexdigest(), pdf_rendered_at=timezone.now()
            )
    invoice.refresh_from_db(fields=["pdf", "pdf_sha256", "pdf_rendered_at"])
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
    builder, whatever the number's prefix holds."""
    response = HttpResponse(invoice_pdf(invoice), content_type=CONTENT_TYPE)
    response["Content-Disposition"] = content_disposition_header(True, invoice_filename(invoice)) or ""
    response["X-Content-Type-Options"] = "nosniff"
    return response


def invoice_pdf_render(invoice: Invoice) -> bytes:
    """Render without storing (tests). Nothing outside the document is fetched: WeasyPrint's
    own fetcher would read any http(s) or file: address the HTML named (an image's, a
    stylesheet's), and the invoice shows nothing that needs one."""
    from weasyprint import HTML  # loads Pango: only in the processes that render one
    from weasyprint.urls import URLFetcher, URLFetchingError

    class NothingFetched(URLFetcher):
        def fetch(self, url: str, headers: object = None) -> object:
            raise URLFetchingError(f"an invoice fetches nothing: {url[:80]}")

    with translation.override(invoice.locale):
        html = render_to_string(TEMPLATE, invoice_context(invoice))
    return HTML(string=html, url_fetcher=NothingFetched()).write_pdf()


def invoice_context(invoice: Invoice) -> dict[str, Any]:
    """What the template shows: the frozen data, every amount formatted for the language."""
    data, currency, locale = invoice.data, invoice.currency, invoice.locale

    def money(minor: int) -> str:
        return money_format(minor_to_amount(minor, currency), currency, locale)

    def rate(text: str) -> str:
        return f"{(Decimal(text) * 100).normalize():f} %"

    return {
        "invoice": invoice,
        "credit_note": invoice.kind == Invoice.Kind.CREDIT_NOTE,
        "data": data,
        "lines": [
            line
            | {
                "unit_price_shown": money(line.get("unit_net", line["unit_price"])),
                "total_shown": money(line["total"]),
                "net_shown": money(line["net"]),
                "vat_shown": money(line["vat"]),
                "rate_shown": rate(line["tax_rate"]),
            }
            for line in data.get("lines", [])
            if "net" in line
        ],
        "refunded_lines": [line for line in data.get("lines", []) if "net" not in line],
        "shipping_shown": money(data["shipping"]["price"]) if data.get("shipping") else "",
        "discounts": [d | {"amount_shown": money(d["amount"])} for d in data.get("discounts", [])],
        "rates": [
            row
            | {
                "rate_shown": rate(row["rate"]),
                "net_shown": money(row["net"]),
                "vat_shown": money(row["vat"]),
                "gross_shown": money(row["gross"]),
            }
            for row in data["rates"]
        ],
        "net_total_shown": money(data["net_total"]),
        "vat_total_shown": money(data["vat_total"]),
        "total_shown": money(data["total"]),
    }
