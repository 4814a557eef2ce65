"""The check an invoice template written in the admin must pass before it is saved, and again
before it is published: rendered against the sample invoice and the sample credit note
(samples.py), it must render in the documents' language, show every element an EU invoice
must (Directive 2006/112/EC art. 226), name no outside address (none would be fetched), and
lay out as a PDF in the child process (template.py) on a few pages. Raises RenderError saying
what is wrong; returns the two PDFs, which the admin's preview shows."""

from typing import Any

from django.utils.html import escape

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, TemplateSource
from notifications.documents.context import document_context
from notifications.documents.layout import Layout
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html, layouts_in_child
from orders.models import Invoice

# The shipped template lays out each sample on one page. A loop's body repeats once per line
# of a real invoice (250 at most) where it repeats twice in the sample, so the pages a sample
# may take bound what a real document takes to lay out.
SAMPLE_MAX_PAGES = 5
# What a document must show, each with its values: a value of the sample that is not in the
# rendered HTML was left out. (Art. 226: the date and number, the parties' names, addresses and
# the seller's VAT number, each line's nature, unit price excluding VAT and rate, the
# discounts, the taxable amount and VAT per rate; a credit note names the invoice it corrects.)
LEGAL_ELEMENTS = {
    "document.number": "its number",
    "document.issued_on": "its date of issue",
    "document.corrects_number": "the invoice a credit note corrects",
    "document.currency": "the currency",
    "seller.legal_name": "the seller's name",
    "seller.legal_address": "the seller's address",
    "seller.vat_number": "the seller's VAT number",
    "buyer.name": "the customer's name",
    "buyer.line1": "the customer's address",
    "buyer.city": "the customer's city",
    "document.lines.name": "each line's name",
    "document.lines.unit_price": "each line's unit price excluding VAT",
    "document.lines.rate": "each line's VAT rate",
    "document.discounts.amount": "each discount",
    "document.rates.rate": "each VAT rate of the totals",
    "document.rates.net": "the net amount per rate",
    "document.rates.vat": "the VAT per rate",
    "document.total": "the total",
}


def document_template_check(*, locale: str, html: str) -> list[bytes]:
    source = TemplateSource(kind=DOCUMENT_KIND, locale=locale, subject="", text="", html=html, draft=True)
    return document_samples_render(source)


def document_samples_render(source: TemplateSource) -> list[bytes]:
    """The PDFs of the sample invoice and credit note rendered from `source` (a draft or a
    stored version), checked; raises RenderError."""
    documents = sample_documents(source.locale)
    htmls = [document_html(source, document) for document in documents]
    for document, html in zip(documents, htmls, strict=True):
        _legal_elements_check(document, html, source.label)
    layouts = layouts_in_child(htmls, label=source.label)
    for document, layout in zip(documents, layouts, strict=True):
        _layout_check(document, layout, source.label)
    return [layout.pdf for layout in layouts]


def _legal_elements_check(document: Invoice, html: str, label: str) -> None:
    context = document_context(document)
    missing = []
    for name, words in LEGAL_ELEMENTS.items():
        absent = [value for value in _values(context, name) if value and escape(value) not in html]
        if absent:
            missing.append(f"{words} ({{{{ {name} }}}}: {absent[0]})")
    if missing:
        raise RenderError(
            f"The html template of {label} leaves out what the sample {document.number_text} must show "
            f"(an EU invoice, Directive 2006/112/EC art. 226): {'; '.join(missing)}."
        )


def _values(context: dict[str, Any], name: str) -> list[str]:
    """The values at a dotted name; a list's name and an item's field ("document.lines.name")
    gives that field of each item."""
    found: list[Any] = [context]
    for key in name.split("."):
        found = [item for value in found for item in (value if isinstance(value, list) else [value])]
        found = [value[key] for value in found]
    return [str(value) for value in found]


def _layout_check(document: Invoice, layout: Layout, label: str) -> None:
    if layout.refused:
        raise RenderError(
            f"The html template of {label} names {layout.refused[0]!r}"
            f"{f' and {len(layout.refused) - 1} more addresses' if len(layout.refused) > 1 else ''}: "
            "a document fetches nothing (no image, stylesheet, font or file from elsewhere), so it would be "
            "left out. Put the CSS in a <style> and leave out what is not in the template itself."
        )
    if layout.pages > SAMPLE_MAX_PAGES:
        raise RenderError(
            f"The html template of {label} lays out the sample {document.number_text} on {layout.pages} "
            f"pages; at most {SAMPLE_MAX_PAGES} (the shipped template takes one, and a real invoice "
            "repeats each line's part up to 250 times)."
        )
