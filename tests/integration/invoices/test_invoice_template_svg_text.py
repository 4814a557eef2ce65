"""Text an inline SVG image draws, which the check of the legal elements cannot read
(notifications/documents/svg_text.py): a draft whose SVG draws a digit against the VAT number is
refused in the form with the reason, one with a logo of shapes alone is saved, and a live
template that draws SVG text for real documents only fails them. Through the admin, as an
invoice template editor writes a draft, and the worker's render of a real invoice."""

import pytest

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND
from notifications.documents.pdf import invoice_pdf
from notifications.models import EmailTemplateVersion
from orders.models import Invoice
from tests.integration.invoices.template_drafts import SHIPPED_HTML, draft_post, draft_published, page_words

pytestmark = pytest.mark.django_db(transaction=True)
VAT_NUMBER = "{{ seller.vat_number }}"
DIGIT = (
    "<svg width='9' height='13' style='vertical-align: baseline'>"
    "<text x='0' y='12' font-size='13.33' font-family='sans-serif'>0</text></svg>"
)
LOGO = "<svg width='40' height='16'><title>ACME</title><path d='M0 0H40V16H0Z' fill='#136'/></svg>"
# True for a real document, false for both samples the check renders (INV-000042, CN-000043)
NOT_A_SAMPLE = '{% if document.number != "INV-000042" and document.number != "CN-000043" %}'


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE999888777"


def test_a_draft_whose_svg_draws_a_digit_against_the_vat_number_is_refused_with_the_reason(
    client, invoice_editor
):
    response = draft_post(client, SHIPPED_HTML.replace(VAT_NUMBER, VAT_NUMBER + DIGIT))
    words = page_words(response)
    assert "draws text in an SVG image ('0')" in words
    assert "Write the text as HTML text" in words
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()


def test_a_draft_with_a_logo_of_shapes_alone_is_saved(client, invoice_editor):
    response = draft_post(client, SHIPPED_HTML.replace("<body>", f"<body>{LOGO}", 1))
    assert response.status_code == 302, page_words(response)


def test_a_live_template_drawing_svg_text_for_real_documents_only_fails_them(
    client, invoice_editor, place_order
):
    # given: the samples see the VAT number alone, a real invoice a digit drawn against it
    drawn = f"{VAT_NUMBER}{NOT_A_SAMPLE}{DIGIT}{{% endif %}}"
    draft_published(client, SHIPPED_HTML.replace(VAT_NUMBER, drawn))
    invoice = Invoice.objects.get(order=place_order(paid=True))
    # when / then
    with pytest.raises(RenderError, match=r"draws text in an SVG image \('0'\)"):
        invoice_pdf(invoice)
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""
