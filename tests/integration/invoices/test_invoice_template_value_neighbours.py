"""A legal element written into a longer value: a character the template writes against it
makes the PDF show another number (1{{ document.total }} shows a total of 159.70, a digit after
the VAT number another VAT number), so the check of the legal elements
(notifications/documents/legal_elements.py) finds a value only apart from other letters and
digits, as the page draws them: a digit in a box of its own (an inline-block, a float) drawn
against the value runs into it too (notifications/documents/drawn_lines.py), and one set apart
by a margin or a space does not. Through the admin, as an invoice template editor writes a
draft."""

import pytest

from notifications.content.sources import DOCUMENT_KIND
from notifications.models import EmailTemplateVersion
from tests.integration.invoices.template_drafts import SHIPPED_HTML, draft_post, page_words

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("value", "written", "element"),
    [
        ("{{ document.total }}", "1{{ document.total }}", "{{ document.total }}"),
        ("{{ seller.vat_number }}", "{{ seller.vat_number }}0", "{{ seller.vat_number }}"),
        ("{{ document.total }}", "<b>1</b>&#x200B;{{ document.total }}", "{{ document.total }}"),
        ("{{ seller.vat_number }}", "{{ seller.vat_number }}&#x202F;0", "{{ seller.vat_number }}"),
        (
            "{{ seller.vat_number }}",
            "{{ seller.vat_number }}<i style='color: #ddd'>0</i>",
            "{{ seller.vat_number }}",
        ),
    ],
    ids=[
        "a digit before the total",
        "a digit after the VAT number",
        "a bold digit, a zero-width space",
        "a digit after a narrow no-break space",
        "a pale grey digit",
    ],
)
def test_a_legal_value_written_into_a_longer_one_is_refused(
    client, invoice_editor, settings, value, written, element
):
    # given: the shipped template with a character against the value (159.70, DE9998887770)
    settings.SHOP_VAT_NUMBER = "DE999888777"
    assert SHIPPED_HTML.count(value) == 1
    # when
    response = draft_post(client, SHIPPED_HTML.replace(value, written))
    # then: refused as leaving the element out, nothing saved
    assert f"({element}: " in page_words(response)
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()


@pytest.mark.parametrize(
    "written",
    [
        "<span style='display: inline-block'>1</span>{{ document.total }}",
        "<span style='float: right'>1</span>{{ document.total }}",
        "<span style='float: left'>1</span><span style='float: left'>{{ document.total }}</span>",
    ],
    ids=[
        "an inline-block digit before the total",
        "a digit floated against the right-aligned total",
        "a floated digit before the floated total",
    ],
)
def test_a_digit_in_a_box_of_its_own_drawn_against_a_legal_value_is_refused(client, invoice_editor, written):
    response = draft_post(client, SHIPPED_HTML.replace("{{ document.total }}", written))
    assert "({{ document.total }}: " in page_words(response)


@pytest.mark.parametrize(
    "written",
    [
        "<span style='display: inline-block; padding: 0 1mm; background: #eee'>EUR</span> "
        "{{ document.total }}",
        "<span style='display: inline-block; margin-right: 1.5mm'>=</span>{{ document.total }}",
        "<span style='float: left; margin-right: 1.5mm'>1x</span>{{ document.total }}",
        "{{ document.total }}<span style='float: right; margin-left: 1.5mm'>paid</span>",
        # floated to the cell's left end, away from the total set at its right (pdftotext reads
        # the row "Total  €43.96  €5.94 1  €49.90"): the page shows the total apart
        "<span style='float: left'>1</span>{{ document.total }}",
    ],
    ids=[
        "a badge and a space",
        "a badge with a margin",
        "a float with a margin",
        "a float to its right",
        "a digit floated to the cell's other end",
    ],
)
def test_a_box_of_its_own_set_apart_from_a_legal_value_is_accepted(client, invoice_editor, written):
    response = draft_post(client, SHIPPED_HTML.replace("{{ document.total }}", written))
    assert response.status_code == 302, page_words(response)  # saved: the check let it through


@pytest.mark.parametrize(
    ("written", "saved"),
    [
        ("1&nbsp;{{ document.total }}", False),
        ("<span style='display: inline-block; margin-right: 0.3em'>1</span>{{ document.total }}", False),
        ("<small>{{ document.total }}</small><br>1{{ document.total }}", False),
        ("2 &#xD7; {{ document.total }}", True),
    ],
    ids=[
        "a digit a no-break space before the total (1 49,90 €)",
        "a digit a word space before it in an inline-block",
        "the total apart in small print, and run into a digit",
        "a quantity times the total",
    ],
)
def test_a_russian_draft_with_a_digit_grouped_with_the_total_is_refused(
    client, invoice_editor, written, saved
):
    # given: Russian groups a number's digits with a no-break space (1 159,70 €)
    html = SHIPPED_HTML.replace("{{ document.total }}", written)
    # when
    response = draft_post(client, html, locale="ru")
    # then
    assert (response.status_code == 302) is saved, page_words(response)
    assert ("({{ document.total }}: 49,90" in page_words(response)) is not saved


def test_a_logo_floated_into_a_table_cell_beside_a_legal_value_is_accepted(client, invoice_editor):
    # given: a logo floated before the date of issue, its margin keeping it apart on the line
    logo = "<span style='float: left; margin-right: 2mm; font-size: 16pt; font-weight: bold'>ACME</span>"
    cell = "<td>{{ document.issued_on }}</td>"
    html = SHIPPED_HTML.replace(cell, f"<td>{logo}{{{{ document.issued_on }}}}</td>", 1)
    assert html != SHIPPED_HTML
    # when
    response = draft_post(client, html)
    # then
    assert response.status_code == 302, page_words(response)
