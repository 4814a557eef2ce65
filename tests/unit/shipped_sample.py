"""The shipped invoice template and its English sample invoice as the check of the legal
elements sees them: the text its laid-out pages show, and that check run as a draft's."""

from notifications.content.sources import DOCUMENT_KIND, SHIPPED_DOCUMENT, TemplateSource
from notifications.documents.layout import pdf_layout
from notifications.documents.legal_elements import legal_elements_check
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html
from orders.models import Invoice

SHIPPED_HTML = SHIPPED_DOCUMENT.read_text()
SOURCE = TemplateSource(kind=DOCUMENT_KIND, locale="en", subject="", text="", html=SHIPPED_HTML)


def shipped_sample_shown() -> tuple[Invoice, str]:
    """The sample invoice and the text the shipped template's pages show of it."""
    invoice = sample_documents("en")[0]
    return invoice, pdf_layout(document_html(SOURCE, invoice)).shown_text


def sample_check(invoice: Invoice, shown: str) -> None:
    """Raises RenderError naming each legal element `shown` leaves out."""
    legal_elements_check(invoice, shown, SOURCE.label, sample=True)
