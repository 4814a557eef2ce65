"""Attacks on the invoice template written in the admin (kind invoice_document): a template that
reaches for what is not its document's (the settings, the order row, another template), one
that names outside addresses (a local listener must see no connection, in the admin's check
nor in a worker's render of a version stored behind the form's back), one that breaks the
render or the layout, and one too big. Each is refused in the form with its reason and nothing
is saved or published; the live template stays what it was."""

import pytest
from django.core import checks

from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, live_version
from notifications.documents import template as template_module
from notifications.documents.pdf import invoice_pdf
from notifications.models import EmailTemplateVersion
from orders.models import Invoice
from tests.connection_listener import ConnectionListener
from tests.integration.invoices.conftest import pdf_text
from tests.integration.invoices.template_drafts import (
    ADMIN,
    SHIPPED_HTML,
    draft_post,
    page_words,
    shipped_with,
    stored_version,
)

pytestmark = pytest.mark.django_db(transaction=True)
REFUSED = "This draft is refused and was not saved: "


@pytest.fixture
def listener():
    listening = ConnectionListener()
    yield listening
    listening.close()


def _refusal(client, html: str) -> str:
    response = draft_post(client, html)
    assert response.status_code == 200, "a refused draft stays on the form"
    words = page_words(response)
    assert REFUSED in words
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()
    return words


# --- reaching beyond the document's values ----------------------------------------------------


@pytest.mark.parametrize(
    ("reach", "reason"),
    [
        ("{{ settings.SECRET_KEY }}", "uses {{ settings.SECRET_KEY }}, which no invoice has"),
        ("{{ invoice.order.customer_email }}", "uses {{ invoice.order.customer_email }}, which no"),
        ("{{ order.shop.api_token }}", "which no invoice has"),
        ("{{ document.number.__class__ }}", "Variables and attributes may not begin with underscores"),
        ("{% debug %}", "uses {% debug %} (line 21), which an invoice template may not use"),
        ('{% include "notifications/email/base.html" %}', "uses {% include %} (line 21)"),
        ('{% extends "admin/base.html" %}', "uses {% extends %} (line 1)"),
        ("{% load static %}", "'static' is not a registered tag library"),
        ('{% ssi "/etc/passwd" %}', "uses {% ssi %} (line 21)"),
        ("{{ seller|pprint }}", "uses the filter |pprint (line 21)"),
        ("{% for x in seller.legal_name %}{{ x }}{% endfor %}", "may loop only over document.lines"),
        ('{% translate "Invoice" as a %}{{ a }}', "an invoice template may not store a value with 'as'"),
    ],
)
def test_a_template_reaching_beyond_its_document_s_values_is_refused_with_the_reason(
    client, invoice_editor, settings, reach, reason
):
    html = reach + SHIPPED_HTML if "extends" in reach else shipped_with(body=reach)
    words = _refusal(client, html)
    assert reason in words
    assert settings.SECRET_KEY not in words


# --- fetching ---------------------------------------------------------------------------------


def _fetching(listener: ConnectionListener) -> str:
    style = (
        f'@import url("{listener.url("import.css")}");\n'
        f"body {{ background: url({listener.url('background.png')}); }}\n"
        f"@font-face {{ font-family: Evil; src: url({listener.url('font.woff')}); }}\n"
        "h1 { font-family: Evil; }"
    )
    body = (
        f'<link rel="stylesheet" href="{listener.url("link.css")}">'
        f'<img src="{listener.url("image.png")}" alt="">'
        f'<svg width="10" height="10"><image href="{listener.url("svg.png")}" width="10" height="10"/></svg>'
        f'<link rel="attachment" href="{listener.url("attachment.txt")}">'
        '<img src="file:///etc/passwd" alt="">'
    )
    return shipped_with(style=style, body=body)


def test_a_draft_naming_outside_addresses_is_refused_and_nothing_is_fetched(client, invoice_editor, listener):
    words = _refusal(client, _fetching(listener))
    assert f"names 'http://127.0.0.1:{listener.port}/" in words
    assert "a document fetches nothing" in words
    assert listener.connections == []


def test_a_version_stored_behind_the_form_s_back_fetches_nothing_when_a_document_renders(
    place_order, listener
):
    stored_version(_fetching(listener), published=True)
    invoice = Invoice.objects.get(order=place_order(paid=True))
    text = pdf_text(invoice_pdf(invoice))  # rendered in this process, as a worker does
    assert "Invoice INV-000001" in text
    assert "root:" not in text
    assert listener.connections == []
    assert Invoice.objects.get(pk=invoice.pk).pdf_template_version == 1


# --- breaking the render or the layout -----------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "reason"),
    [
        (shipped_with(body="{% if document.credit_note %}"), "Unclosed tag"),
        (shipped_with(body="{{ document.nmber }}"), "uses {{ document.nmber }}, which no invoice has"),
        (
            SHIPPED_HTML.replace("{{ seller.vat_number }}", ""),
            "leaves out what the sample INV-000042 must show (an EU invoice, Directive 2006/112/EC "
            "art. 226): the seller's VAT number ({{ seller.vat_number }}: DE999888777).",
        ),
        (
            SHIPPED_HTML.replace("document.corrects_number", "document.number"),
            "leaves out what the sample CN-000043 must show (an EU invoice, Directive 2006/112/EC "
            "art. 226): the invoice a credit note corrects ({{ document.corrects_number }}: INV-000042).",
        ),
        (shipped_with(style="@page { size: 40mm 40mm; margin: 2mm; }"), "pages; at most 5"),
    ],
    ids=["unclosed tag", "undefined value", "no VAT number", "credit note's invoice", "pages"],
)
def test_a_draft_that_does_not_render_or_lay_out_is_refused_with_the_reason(
    client, invoice_editor, settings, html, reason
):
    settings.SHOP_VAT_NUMBER = "DE999888777"  # the default register names the default VAT number too
    assert reason in _refusal(client, html)


def test_a_layout_past_its_cpu_limit_is_stopped_and_refused(client, invoice_editor, monkeypatch):
    # 3 mm pages of 20,000 words: minutes of layout, stopped by the kernel at the limit
    monkeypatch.setattr(template_module, "LAYOUT_MAX_CPU_SECONDS", 2)
    html = shipped_with(style="@page { size: 3mm 3mm; margin: 0; }", body="<p>" + "x " * 20_000 + "</p>")
    assert "as a PDF took more than 2 s of CPU" in _refusal(client, html)


def test_a_layout_past_its_memory_limit_is_refused(client, invoice_editor, monkeypatch):
    # a limit under what WeasyPrint needs to start: the child's allocation fails (a MemoryError,
    # or an error of the C code that allocated), and the draft is refused
    monkeypatch.setattr(template_module, "LAYOUT_MAX_MEMORY_BYTES", 32 << 20)
    words = _refusal(client, SHIPPED_HTML)
    assert "WeasyPrint could not lay out the new invoice_document (en) draft as a PDF: " in words


def test_a_draft_over_the_size_cap_is_refused_before_it_renders(client, invoice_editor):
    html = shipped_with(body="<!--" + "x" * 50_000 + "-->")
    words = _refusal(client, html)
    assert "characters long; an invoice template may have at most 50,000." in words


def test_a_broken_version_stored_behind_the_form_s_back_is_not_published_and_the_live_one_stays(
    client, invoice_editor
):
    live = stored_version(shipped_with(body="<p>Thank you</p>"), published=True)
    broken = stored_version(shipped_with(body="{{ settings.SECRET_KEY }}"))
    response = client.post(f"{ADMIN}{broken.pk}/publish/", follow=True)
    assert "Not published: The html template of invoice_document (en) version 2 uses" in page_words(response)
    assert live_version(DOCUMENT_KIND, "en") == live
    broken.refresh_from_db()
    assert broken.state == "draft"


def test_migrate_refuses_while_a_live_invoice_template_does_not_render():
    with_filter = SHIPPED_HTML.replace("{{ seller.vat_number }}", "{{ seller.vat_number|upper }}")
    stored_version(with_filter, published=True)
    [error] = [e for e in checks.run_checks(databases=["default"]) if e.id == "notifications.E008"]
    assert "invoice_document (en) v1" in error.msg
    assert "|upper" in error.msg


def test_a_live_template_that_outgrows_its_cap_on_a_large_invoice_fails_it_and_stores_nothing(place_order):
    # 2 sample lines render; 30 real ones repeat a 40,000-character body past the 1,000,000 cap
    body = "{% for line in document.lines %}<p>{{ line.name }}" + "x" * 40_000 + "</p>{% endfor %}"
    stored_version(shipped_with(body=body), published=True)
    line = {"quantity": 1, "unit_price": 100, "total": 100, "tax_rate": "0.19"}
    lines = [line | {"sku": f"S{n}", "name": f"Item {n}"} for n in range(30)]
    order = place_order(paid=True, lines=lines, discounts=[], shipping=None, tax_total=None, total=3000)
    invoice = Invoice.objects.get(order=order)
    with pytest.raises(RenderError, match=r"an invoice part may have at most 1,000,000"):
        invoice_pdf(invoice)
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""
