"""The shipped invoice template and its English sample invoice as the check of the legal
elements sees them: the text its laid-out pages show, and that check run as a draft's; and the
shipped template with one value written otherwise, run through the checks of a draft's pages."""

from dataclasses import replace

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, SHIPPED_DOCUMENT, TemplateSource
from notifications.documents.layout import pdf_layout
from notifications.documents.legal_elements import legal_elements_check
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html, pages_check
from orders.models import Invoice

SHIPPED_HTML = SHIPPED_DOCUMENT.read_text()
SOURCE = TemplateSource(kind=DOCUMENT_KIND, locale="en", subject="", text="", html=SHIPPED_HTML)
VAT_NUMBER = "{{ seller.vat_number }}"
# The sample's register entry names the VAT number too, apart: left out, so the one written is read
REGISTER = "{{ seller.register }}"


def shipped_sample_shown() -> tuple[Invoice, str]:
    """The sample invoice and the text the shipped template's pages show of it."""
    invoice = sample_documents("en")[0]
    return invoice, pdf_layout(document_html(SOURCE, invoice)).shown_text


def sample_check(invoice: Invoice, shown: str) -> None:
    """Raises RenderError naming each legal element `shown` leaves out."""
    legal_elements_check(invoice, shown, SOURCE.label, sample=True)


def written_refusal(written: str, *, value: str = VAT_NUMBER, locale: str = "en") -> str:
    """The refusal of the shipped template with `value`, which it writes once, written as
    `written` ('' where the checks of a draft's pages accept it), for the sample invoice in
    `locale`. A test that sets no VAT number (the tests' settings leave it empty) checks none."""
    assert SHIPPED_HTML.count(value) == 1
    assert SHIPPED_HTML.count(REGISTER) == 1
    html = SHIPPED_HTML.replace(REGISTER, "").replace(value, written)
    source = replace(SOURCE, html=html, locale=locale, draft=True)
    invoice = sample_documents(locale)[0]
    try:
        pages_check(invoice, pdf_layout(document_html(source, invoice)), source, sample=True)
    except RenderError as refused:
        return str(refused)
    return ""
