"""The check an invoice template written in the admin must pass before it is saved, and again
before it is published: rendered against the sample invoice and the sample credit note
(samples.py), it must render in the documents' language, name no outside address (none would
be fetched), lay out as a PDF in the child process (template.py) on a few pages, and show on
them every element an EU invoice must (Directive 2006/112/EC art. 226), drawing no text in an SVG
image, which that check cannot read. Raises RenderError saying what is wrong; returns the two
PDFs, which the admin's preview shows."""

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, TemplateSource
from notifications.documents.layout import Layout
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html, layouts_in_child, pages_check
from orders.models import Invoice

# The shipped template lays out each sample on one page. A loop's body repeats once per line
# of a real invoice (250 at most) where it repeats twice in the sample, so the pages a sample
# may take keep a real document's layout in reason; what bounds it is the child's CPU limit,
# under which every real document rendered from a version is laid out (template.py), since
# `{% if %}` can tell the samples from a real document.
SAMPLE_MAX_PAGES = 5


def document_template_check(*, locale: str, html: str) -> list[bytes]:
    source = TemplateSource(kind=DOCUMENT_KIND, locale=locale, subject="", text="", html=html, draft=True)
    return document_samples_render(source)


def document_samples_render(source: TemplateSource, *, only: int | None = None) -> list[bytes]:
    """The PDFs of the sample invoice and credit note rendered from `source` (a draft or a
    stored version), checked; raises RenderError. `only` (0, the invoice; 1, the credit note)
    renders that one alone: a preview's frame shows one, and each layout may take seconds."""
    documents = sample_documents(source.locale)
    documents = documents if only is None else [documents[only]]
    htmls = [document_html(source, document) for document in documents]
    layouts = layouts_in_child(htmls, label=source.label)
    for document, layout in zip(documents, layouts, strict=True):
        _layout_check(document, layout, source.label)
        pages_check(document, layout, source, sample=True)
    return [layout.pdf for layout in layouts]


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
