"""Attacks by an invoice template editor on the invoices of real orders through a template that
passes the admin's check: the check renders two fixed samples, and `{% if %}` can tell them from
a real document by their values (the sample's number is INV-000042). A published version that
lays out the samples in a second but a real invoice in minutes, or that shows a legal element to
the samples only, must fail the real document with the reason and store nothing, never hold the
worker's (or the web request's) process or issue an invoice without what the law asks."""

import pytest

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND
from notifications.documents import template as template_module
from notifications.documents.pdf import invoice_pdf
from notifications.models import EmailTemplateVersion
from orders.models import Invoice
from tests.integration.invoices.template_drafts import (
    ADMIN,
    SHIPPED_HTML,
    draft_post,
    page_words,
    shipped_with,
)

pytestmark = pytest.mark.django_db(transaction=True)
# True for a real document, false for both samples the check renders (INV-000042, CN-000043)
NOT_A_SAMPLE = '{% if document.number != "INV-000042" and document.number != "CN-000043" %}'
ONLY_THE_SAMPLES = '{% if document.number == "INV-000042" or document.number == "CN-000043" %}'


def _published_by_the_editor(client, html: str) -> EmailTemplateVersion:
    response = draft_post(client, html)
    assert response.status_code == 302, page_words(response)  # the check let it through
    version = EmailTemplateVersion.objects.get(kind=DOCUMENT_KIND)
    published = client.post(f"{ADMIN}{version.pk}/publish/", follow=True)
    assert f"Version {version.number} is live" in page_words(published)
    return version


@pytest.mark.timeout(90)  # unbounded, the layout below runs for many minutes
def test_a_live_template_whose_layout_explodes_for_real_documents_only_is_stopped_at_its_cpu_limit(
    client, invoice_editor, place_order, monkeypatch
):
    # given: 3 mm pages of 20,000 words for every document but the samples
    style = NOT_A_SAMPLE + "@page { size: 3mm 3mm; margin: 0; }{% endif %}"
    body = NOT_A_SAMPLE + "<p>" + "x " * 20_000 + "</p>{% endif %}"
    _published_by_the_editor(client, shipped_with(style=style, body=body))
    monkeypatch.setattr(template_module, "LAYOUT_MAX_CPU_SECONDS", 2)
    invoice = Invoice.objects.get(order=place_order(paid=True))
    # when: the worker renders the invoice its email carries
    with pytest.raises(RenderError, match=r"as a PDF took more than 2 s of CPU"):
        invoice_pdf(invoice)
    # then: stopped at the limit, nothing stored
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""


def test_a_live_template_showing_a_legal_element_to_the_samples_only_fails_real_documents(
    client, invoice_editor, place_order, settings
):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    shown_to_the_samples = ONLY_THE_SAMPLES + "{{ seller.vat_number }}{% endif %}"
    html = SHIPPED_HTML.replace("{{ seller.vat_number }}", shown_to_the_samples)
    _published_by_the_editor(client, html)
    invoice = Invoice.objects.get(order=place_order(paid=True))
    with pytest.raises(RenderError, match=r"leaves out what INV-000001 must show .*the seller's VAT number"):
        invoice_pdf(invoice)
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""


@pytest.mark.parametrize(
    "hidden",
    [
        "<!-- {{ seller.vat_number }} -->",
        '<span title="{{ seller.vat_number }}"></span>',
        "<title>{{ seller.vat_number }}</title>",
        "<div hidden><p>Our number:<div>{{ seller.vat_number }}</div></p></div>",
        "<ruby>DE<rp>{{ seller.vat_number }}</rp></ruby>",
    ],
    ids=["comment", "attribute", "title", "hidden", "ruby's fallback"],
)
def test_a_legal_element_written_where_no_page_shows_it_is_refused(client, invoice_editor, settings, hidden):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    html = SHIPPED_HTML.replace("{{ seller.vat_number }}", "").replace("<body>", f"<body>{hidden}", 1)
    response = draft_post(client, html)
    assert "the seller's VAT number ({{ seller.vat_number }}: DE999888777)" in page_words(response)
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()


@pytest.mark.xfail(
    strict=True,
    reason="the legal elements are looked for in the HTML's text, not on the laid-out page "
    "(docs/orders.md: a check against forgetting one, not against hiding it with CSS): reading the PDF's "
    "text back needs a PDF reader the image does not ship, and CSS hides in many ways",
)
@pytest.mark.parametrize(
    "hiding",
    [
        '<span style="display: none">{{ seller.vat_number }}</span>',
        '<span style="color: white">{{ seller.vat_number }}</span>',
        '<span style="font-size: 0">{{ seller.vat_number }}</span>',
    ],
    ids=["display none", "white", "font-size 0"],
)
def test_a_legal_element_hidden_on_the_page_is_refused(client, invoice_editor, settings, hiding):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    response = draft_post(client, SHIPPED_HTML.replace("{{ seller.vat_number }}", hiding))
    assert "the seller's VAT number ({{ seller.vat_number }}: DE999888777)" in page_words(response)
