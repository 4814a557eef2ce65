"""The invoice template overridden in the admin as the emails' wording is: a new version of kind
invoice_document starts from the shipped invoice.html, is previewed as the sample invoice's and
credit note's PDFs, and once published renders every invoice and credit note rendered after
it, per language, with every element an EU invoice must show; a document rendered before keeps
its bytes, and each row says which version it used. Read back with pdftotext."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.db import transaction

from notifications.content.sources import DOCUMENT_KIND, live_version
from notifications.documents.pdf import invoice_pdf
from notifications.models import EmailTemplateVersion
from orders.invoicing.issue import credit_note_issue
from orders.models import Invoice
from tests.integration.invoices.conftest import pdf_text
from tests.integration.invoices.template_drafts import (
    ADMIN,
    SHIPPED_HTML,
    draft_post,
    page_words,
    shipped_with,
)

pytestmark = pytest.mark.django_db(transaction=True)
THANKS = "<p class=thanks>Thank you for shopping with Example Shop: this override is ours.</p>"


def _published(client, html: str, *, locale: str = "en") -> EmailTemplateVersion:
    response = draft_post(client, html, locale=locale)
    assert response.status_code == 302, page_words(response)
    version = EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).order_by("-pk")[0]
    published = client.post(f"{ADMIN}{version.pk}/publish/", follow=True)
    assert f"Version {version.number} is live: invoices and credit notes in {locale}" in page_words(published)
    version.refresh_from_db()
    return version


def _legal_elements(invoice: Invoice, text: str) -> None:
    """Every element test_invoice_issue.py checks in the shipped template's PDF."""
    for element in (
        f"Invoice {invoice.number_text}",
        "Date of issue",
        invoice.data["issued_on"],
        "Example Shop GmbH",
        "Hauptstrasse 1, 10115 Berlin, Germany",
        "VAT number: DE999888777",
        "Ada Lovelace",
        "Hauptstrasse 12",
        "10115 Berlin",
        "Blue mug (MUG-BLUE)",
        "Earl Grey, 250 g (TEA-EARL)",
        "€49.90",
        "EUR",
        "1001",
    ):
        assert element in text, (element, text)
    assert re.search(r"19 ?%", text)
    assert re.search(r"7 ?%", text)
    for row in invoice.data["rates"]:
        assert f"€{row['vat'] / 100:.2f}" in text, (row, text)
        assert f"€{row['net'] / 100:.2f}" in text, (row, text)


def test_a_new_version_is_offered_and_starts_from_the_shipped_template_without_subject_or_text(
    client, invoice_editor
):
    assert "Invoice and credit note (PDF)" in client.get(f"{ADMIN}add/").content.decode()
    step_two = client.get(f"{ADMIN}add/?kind={DOCUMENT_KIND}&locale=ru")
    form = step_two.context["adminform"].form
    assert form.initial["html"] == SHIPPED_HTML
    assert set(form.fields) == {"kind", "locale", "html", "comment"}
    assert "New wording: Invoice and credit note (PDF) (ru)" in step_two.content.decode()
    assert "laid out as a PDF by WeasyPrint" in step_two.content.decode()


def test_a_draft_is_saved_read_only_and_previewed_as_the_sample_pdfs(client, invoice_editor):
    response = draft_post(client, shipped_with(body=THANKS))
    version = EmailTemplateVersion.objects.get(kind=DOCUMENT_KIND)
    assert (version.number, version.state, version.subject, version.text) == (1, "draft", "", "")
    page = client.get(response["Location"]).content.decode()
    assert 'name="html"' not in page  # shown, not editable
    assert "Subject:" not in page
    preview = client.get(f"{ADMIN}{version.pk}/preview/").content.decode()
    assert "Rendered against the sample invoice and the sample credit note" in preview
    assert preview.count('<iframe class="document-pdf"') == 2
    invoice = client.get(f"{ADMIN}{version.pk}/preview/invoice.pdf")
    assert invoice["Content-Type"] == "application/pdf"
    assert invoice["X-Frame-Options"] == "SAMEORIGIN"
    assert "Thank you for shopping with Example Shop" in pdf_text(invoice.content)
    assert "Invoice INV-000042" in pdf_text(invoice.content)
    note = client.get(f"{ADMIN}{version.pk}/preview/credit_note.pdf")
    assert "Credit note CN-000043" in pdf_text(note.content)
    assert "Corrects invoice" in pdf_text(note.content)
    assert client.get(f"{ADMIN}{version.pk}/preview/order.pdf").status_code == 404
    version.refresh_from_db()
    assert version.state == "draft"  # a preview publishes nothing


def test_a_published_template_renders_the_documents_rendered_after_it_with_every_legal_element(
    client, invoice_editor, place_order, settings, admin_client
):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    version = _published(client, shipped_with(body=THANKS))
    invoice = Invoice.objects.get(order=place_order(paid=True))
    text = pdf_text(invoice_pdf(invoice))
    assert "Thank you for shopping with Example Shop: this override is ours." in text
    _legal_elements(invoice, text)
    assert Invoice.objects.get(pk=invoice.pk).pdf_template_version == version.number
    admin_page = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/change/").content.decode()
    assert f'<a href="{ADMIN}{version.pk}/change/">version 1 (en)</a>' in admin_page


def test_a_document_rendered_before_keeps_its_bytes_and_a_credit_note_after_uses_the_template(
    client, invoice_editor, place_order, admin_client
):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    before = invoice_pdf(invoice)
    _published(client, shipped_with(body=THANKS))
    stored = Invoice.objects.get(pk=invoice.pk)
    assert invoice_pdf(stored) == before  # never rendered again
    assert stored.pdf_template_version is None  # the shipped template's
    assert "this override is ours" not in pdf_text(before)
    admin_page = admin_client.get(f"/admin/orders/invoice/{invoice.pk}/change/").content.decode()
    assert "the shipped template" in admin_page
    with transaction.atomic():
        note = credit_note_issue(stored, amount_minor=1810)
    note_text = pdf_text(invoice_pdf(note))
    assert "this override is ours" in note_text
    assert "Corrects invoice" in note_text
    assert invoice.number_text in note_text


def test_a_template_is_per_language_and_back_to_the_shipped_one_when_retired(
    client, invoice_editor, place_order
):
    version = _published(client, shipped_with(body=THANKS), locale="ru")
    english = Invoice.objects.get(order=place_order(paid=True, number="EN-1"))
    assert "this override is ours" not in pdf_text(invoice_pdf(english))
    russian = Invoice.objects.get(order=place_order(paid=True, locale="ru", number="RU-1"))
    russian_text = pdf_text(invoice_pdf(russian))
    assert "this override is ours" in russian_text
    assert "Ставка НДС" in russian_text  # its {% translate %} in the document's language
    client.post(f"{ADMIN}{version.pk}/retire/")
    assert live_version(DOCUMENT_KIND, "ru") is None
    later = Invoice.objects.get(order=place_order(paid=True, locale="ru", number="RU-2"))
    assert "this override is ours" not in pdf_text(invoice_pdf(later))
    assert Invoice.objects.get(pk=later.pk).pdf_template_version is None


def test_a_version_is_previewed_against_a_real_document_whose_stored_pdf_stays(
    client, invoice_editor, place_order
):
    invoice_editor.user_permissions.add(Permission.objects.get(codename="view_invoice"))
    invoice = Invoice.objects.get(order=place_order(paid=True))
    stored = invoice_pdf(invoice)
    draft_post(client, shipped_with(body=THANKS))
    version = EmailTemplateVersion.objects.get(kind=DOCUMENT_KIND)
    page = client.get(f"{ADMIN}{version.pk}/preview/", {"document": str(invoice.pk)}).content.decode()
    assert f"Rendered against Invoice {invoice.number_text} of order {invoice.order_id}" in page
    assert page.count('<iframe class="document-pdf"') == 1
    pdf = client.get(f"{ADMIN}{version.pk}/preview/document.pdf", {"document": str(invoice.pk)})
    text = pdf_text(pdf.content)
    assert "this override is ours" in text
    assert f"Invoice {invoice.number_text}" in text
    assert bytes(Invoice.objects.get(pk=invoice.pk).pdf or b"") == stored


@pytest.mark.parametrize(
    ("document", "granted", "words"),
    [
        ("real", False, "it needs the permission to view invoices"),
        ("3f0c1b9e-0000-4000-8000-000000000000", True, "There is no invoice or credit note 3f0c1b9e-"),
        ("INV-000001", True, "'INV-000001' is not the id of a document"),
    ],
)
def test_a_preview_against_a_document_not_shown_says_why(
    client, invoice_editor, place_order, document, granted, words
):
    if granted:
        invoice_editor.user_permissions.add(Permission.objects.get(codename="view_invoice"))
    invoice = Invoice.objects.get(order=place_order(paid=True))
    asked = str(invoice.pk) if document == "real" else document
    draft_post(client, shipped_with(body=THANKS))
    version = EmailTemplateVersion.objects.get(kind=DOCUMENT_KIND)
    page = page_words(client.get(f"{ADMIN}{version.pk}/preview/", {"document": asked}))
    assert words in page
    assert "<iframe" not in page
    assert invoice.data["buyer"]["email"] not in page
    pdf = client.get(f"{ADMIN}{version.pk}/preview/document.pdf", {"document": asked})
    assert (pdf.status_code, pdf["Content-Type"]) == (422, "text/plain; charset=utf-8")
    assert words in pdf.content.decode()
