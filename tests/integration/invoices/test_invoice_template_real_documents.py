"""Attacks by an invoice template editor on the invoices of real orders through a template that passes the
admin's check: the check renders two fixed samples, and `{% if %}` can tell them from a real
document by their values (the sample's number is INV-000042). A published version that lays
out the samples in a second but a real invoice in minutes, or that shows a legal element to the
samples only, must fail the real document with the reason and store nothing, never hold the
worker's (or the web request's) process or issue an invoice without what the law asks.

A legal element is looked for in what the laid-out pages show (notifications/documents/
page_text.py): written where no page shows it, or hidden there by CSS, it is refused, in the
samples and in a real document; shown in a style of its own, it is not."""

import pytest

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND
from notifications.documents import template as template_module
from notifications.documents.pdf import invoice_pdf
from notifications.models import EmailTemplateVersion
from orders.models import Invoice
from tests.integration.invoices.template_drafts import (
    ONLY_THE_SAMPLES,
    SHIPPED_HTML,
    draft_post,
    draft_published,
    page_words,
    shipped_with,
)

pytestmark = pytest.mark.django_db(transaction=True)
# True for a real document, false for both samples the check renders (INV-000042, CN-000043)
NOT_A_SAMPLE = '{% if document.number != "INV-000042" and document.number != "CN-000043" %}'
VAT_NUMBER = "{{ seller.vat_number }}"


def _span(style: str, inside: str = "") -> str:
    return f'<span style="{style}">{VAT_NUMBER}{inside}</span>'


@pytest.mark.timeout(90)  # unbounded, the layout below runs for many minutes
def test_a_live_template_whose_layout_explodes_for_real_documents_only_is_stopped_at_its_cpu_limit(
    client, invoice_editor, place_order, monkeypatch
):
    # given: 3 mm pages of 20,000 words for every document but the samples
    style = NOT_A_SAMPLE + "@page { size: 3mm 3mm; margin: 0; }{% endif %}"
    body = NOT_A_SAMPLE + "<p>" + "x " * 20_000 + "</p>{% endif %}"
    draft_published(client, shipped_with(style=style, body=body))
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
    draft_published(client, html)
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


def test_a_live_template_hiding_a_legal_element_on_real_documents_only_fails_them(
    client, invoice_editor, place_order, settings
):
    # given: the VAT number white on white for every document but the samples
    settings.SHOP_VAT_NUMBER = "DE999888777"
    style = NOT_A_SAMPLE + ".vat { color: white; }{% endif %}"
    html = shipped_with(style=style).replace(VAT_NUMBER, f'<span class="vat">{VAT_NUMBER}</span>')
    draft_published(client, html)
    invoice = Invoice.objects.get(order=place_order(paid=True))
    # when / then: its layout in the child shows no VAT number, so the document fails
    with pytest.raises(RenderError, match=r"leaves out what INV-000001 must show .*the seller's VAT number"):
        invoice_pdf(invoice)
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""


# Each hides the VAT number from the page in its own way, where the shipped template shows it.
HIDINGS = {
    "display none": _span("display: none"),
    "white": _span("color: white"),
    "font-size 0": _span("font-size: 0"),
    "font-size 0.1pt": _span("font-size: 0.1pt"),
    "visibility hidden": _span("visibility: hidden"),
    "opacity 0": _span("opacity: 0"),
    "opacity 0.05": _span("opacity: 0.05"),
    "colour transparent": _span("color: transparent"),
    "colour of its background": _span("color: #234; background: #234"),
    "colour of a gradient": _span(
        "display: inline-block; background: linear-gradient(#234, #234); color: #234"
    ),
    "colour of an inset shadow": _span(
        "display: inline-block; box-shadow: inset 0 0 0 50mm black; color: black"
    ),
    "margin off the page": _span("margin-left: -10000px"),
    "text-indent off the page": f'<div style="text-indent: -10000px">{VAT_NUMBER}</div>',
    "positioned off the page": _span("position: absolute; left: -10000px"),
    "translated off the page": _span("display: inline-block; transform: translateX(-10000px)"),
    "scaled to nothing": _span("display: inline-block; transform: scale(0.02)"),
    "overflow of a width 0": _span("display: inline-block; width: 0; overflow: hidden"),
    "overflow of a height 0": f'<div style="height: 0; overflow: hidden">{VAT_NUMBER}</div>',
    "clip": _span("position: absolute; clip: rect(0, 0, 0, 0)"),  # WeasyPrint ignores rect(0 0 0 0)
    "covered by a box drawn over it": _span(
        "position: relative",
        '<span style="position: absolute; left: 0; top: 0; width: 40mm; height: 5mm; '
        'background: white"></span>',
    ),
    "letters piled on one another": _span("letter-spacing: -1em"),
}


@pytest.mark.parametrize("hiding", list(HIDINGS.values()), ids=list(HIDINGS))
def test_a_legal_element_hidden_on_the_page_is_refused(client, invoice_editor, settings, hiding):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    response = draft_post(client, SHIPPED_HTML.replace(VAT_NUMBER, hiding))
    assert "the seller's VAT number ({{ seller.vat_number }}: DE999888777)" in page_words(response)
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()


@pytest.mark.parametrize(
    ("style", "vat_number"),
    [
        ("", _span("text-transform: lowercase")),
        (".parties div { text-transform: uppercase; }", VAT_NUMBER),
        ("", _span("color: white; background: #1f2328")),
        ("", _span("color: #999; font-size: 6pt")),
        ("", "<b>DE</b>999<i>888</i>777"),
        ("", _span("display: inline-block; transform: rotate(90deg)")),
        (".parties div { width: 22mm; }", VAT_NUMBER),
        ('@page { @bottom-center { content: "VAT number DE999888777"; } }', ""),
        ("", _span("text-decoration: underline; border: 1px solid; padding: 0 1mm; background: #eee")),
    ],
    ids=[
        "lowercase",
        "uppercase parties",
        "white on dark",
        "light grey 6 pt",
        "split",
        "rotated",
        "narrow",
        "page footer",
        "underlined in a box",
    ],
)
def test_a_legal_element_shown_in_a_style_of_its_own_is_accepted(
    client, invoice_editor, settings, style, vat_number
):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    html = shipped_with(style=style).replace(VAT_NUMBER, vat_number)
    response = draft_post(client, html)
    assert response.status_code == 302, page_words(response)  # saved: the check let it through
