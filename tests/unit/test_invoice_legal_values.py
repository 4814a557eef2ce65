"""Where the check of the legal elements (notifications/documents/legal_elements.py) finds a
value in the text of the pages: apart from other letters and digits, since a character run into
it makes the page show another number (1€59.70), however the page breaks it across lines; and
what a value holding bidi formatting characters gives the template (context.py). The text is
the shipped template's for the sample invoice, laid out once, then changed as a template could."""

import pytest

from notifications.content.errors import RenderError
from notifications.documents.context import document_context
from notifications.documents.layout import pdf_layout
from notifications.documents.page_text import UNSHOWN
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html
from orders.models import Invoice
from tests.unit.shipped_sample import SOURCE, sample_check, shipped_sample_shown


@pytest.fixture(scope="module")
def shipped() -> tuple[Invoice, str]:
    return shipped_sample_shown()


def _value(invoice: Invoice, name: str) -> str:
    part, field = name.split(".")
    return document_context(invoice)[part][field]


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [
        ("document.total", "1", ""),
        ("document.total", "", "5"),
        ("seller.vat_number", "", "0"),
        ("seller.vat_number", "X", ""),
        ("document.total", "1\u200b", ""),
        ("document.total", "1\u2060\u00ad", ""),
        ("seller.vat_number", "", "\u0301"),
        ("document.number", "\uff11", ""),
    ],
    ids=[
        "a digit before",
        "a digit after",
        "a digit after the VAT number",
        "a letter before the VAT number",
        "a zero-width space between",
        "a word joiner and a soft hyphen between",
        "a combining accent on its last digit",
        "a full-width digit before",
    ],
)
def test_a_value_run_into_a_letter_digit_or_accent_is_left_out(shipped, name, before, after):
    # given: every place the page shows the value, with a character run into it
    invoice, shown = shipped
    value = _value(invoice, name)
    assert value in shown
    # when / then
    with pytest.raises(RenderError) as refused:
        sample_check(invoice, shown.replace(value, f"{before}{value}{after}"))
    assert f"({{{{ {name} }}}}: {value})" in str(refused.value)


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("document.total", "Total: {value}."),
        ("document.total", f"1{UNSHOWN}{{value}}{UNSHOWN}5"),
        ("document.total", "\u2212{value}"),
        ("seller.vat_number", "({value})"),
        ("seller.vat_number", "VAT\n{value}\nnext"),
        ("seller.vat_number", "{head}\u2010\n{tail}"),
        ("seller.legal_address", "{head}\n{tail}"),
    ],
    ids=[
        "after a label, before a full stop",
        "in a block of its own, between others",
        "after a minus sign",
        "in brackets",
        "on a line of its own",
        "broken across lines with a hyphen",
        "broken across lines",
    ],
)
def test_a_value_apart_from_other_letters_and_digits_is_shown(shipped, name, written):
    invoice, shown = shipped
    value = _value(invoice, name)
    head, tail = value[: len(value) // 2], value[len(value) // 2 :]
    written = written.format(value=value, head=head, tail=tail)
    sample_check(invoice, shown.replace(value, written))  # raises if left out


def test_a_value_s_bidi_formatting_characters_are_left_out_and_it_is_drawn_as_stored():
    # given: a seller's name with a right-to-left override, as a shop's own settings may hold it
    invoice = sample_documents("en")[0]
    name = invoice.data["seller"]["legal_name"]
    invoice.data["seller"]["legal_name"] = f"\u202e{name}\u2067\u202c"
    # when
    context = document_context(invoice)
    shown = pdf_layout(document_html(SOURCE, invoice)).shown_text
    # then: the template sees the name without them, and its page shows it
    assert context["seller"]["legal_name"] == name
    sample_check(invoice, shown)
