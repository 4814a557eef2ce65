"""Where the check of the legal elements (value_places.py) finds a value: whole, apart, and run
into no number anywhere the page shows it. A value shown apart once (in fine print, say) but run
into a digit where a reader looks for it (1{{ document.total }} in the totals' row), split into
two words by a gap the page draws inside it (its first letter raised off its line, or set apart,
by ::first-letter), or run on into a separator and digits after it ({{ document.total }},5), or
after a character drawn as a separator (a low quotation mark, U+201A, is a comma's glyph:
1&#x201A;19 % reads 1,19 %), must count as left out. A value within another value of the
document shown there, wrapped across lines, or after punctuation that makes no number, must
count as shown. The shipped template with one value written otherwise, its sample invoice laid
out by WeasyPrint in this process, or its text changed as a template could."""

import copy
from dataclasses import replace

import pytest

from notifications.content.errors import RenderError
from notifications.documents.context import document_context
from notifications.documents.layout import pdf_layout
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html
from notifications.documents.value_places import comparable_words, value_shown
from orders.models import Invoice
from tests.unit.shipped_sample import SOURCE, VAT_NUMBER, sample_check, written_refusal

TOTAL = "{{ document.total }}"
RATE = "{{ row.rate }}"
NAMED = {RATE: "{{ document.rates.rate }}"}
FINE_PRINT = "<span style='font-size: 6pt; color: #777'>{}</span>"
STYLE = "<style>.v::first-letter {{ {} }}</style><span class='v' style='display: inline-block'>{}</span>"


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _refuses(written: str, value: str, locale: str = "en") -> bool:
    return f"({NAMED.get(value, value)}: " in written_refusal(written, value=value, locale=locale)


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (f"1{TOTAL}<br>{FINE_PRINT.format(TOTAL)}", TOTAL, "ru"),
        (f"{FINE_PRINT.format(VAT_NUMBER)} {VAT_NUMBER}0", VAT_NUMBER, "en"),
        (f"1,{RATE}", RATE, "ru"),
    ],
    ids=[
        "the total in fine print, and run into a digit in the totals' row",
        "the VAT number in fine print, and run into a digit after it",
        "a rate run into 1, where a line's rate shows it apart",
    ],
)
def test_a_value_shown_apart_once_but_run_into_a_number_elsewhere_is_refused(written, value, locale):
    assert _refuses(written, value, locale)


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (STYLE.format("vertical-align: super; font-size: 70%", TOTAL), TOTAL, "ru"),
        (STYLE.format("vertical-align: -0.5em", VAT_NUMBER), VAT_NUMBER, "en"),
        (STYLE.format("margin-right: 0.5em", TOTAL), TOTAL, "ru"),
        (STYLE.format("padding-right: 1em", VAT_NUMBER), VAT_NUMBER, "en"),
    ],
    ids=[
        "its first digit raised as a footnote's mark",
        "its first letter lowered off its line",
        "its first digit set apart by a margin",
        "its first letter set apart by a padding",
    ],
)
def test_a_value_the_page_splits_into_two_words_is_refused(written, value, locale):
    assert _refuses(written, value, locale)


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (f"{TOTAL},5", TOTAL, "en"),
        (f"{TOTAL}.5", TOTAL, "en"),
        (f"{VAT_NUMBER}.5", VAT_NUMBER, "en"),
        (f"{VAT_NUMBER}<span style='display: inline-block'>,0</span>", VAT_NUMBER, "en"),
        (f"1&#x201A;{RATE}", RATE, "ru"),
        (f"1&#xB7;{RATE}", RATE, "en"),
        (f"1&#x2032;{TOTAL}", TOTAL, "ru"),
    ],
    ids=[
        "a comma and a digit after the total",
        "a full stop and a digit after the total",
        "a full stop and a digit after the VAT number",
        "a comma and a digit in an inline-block after the VAT number",
        "a low quotation mark, a comma's glyph, before a rate",
        "a middle dot, a British decimal point, before a rate",
        "a prime, a Swiss group separator's glyph, before the total",
    ],
)
def test_a_value_run_on_into_a_number_by_a_separator_is_refused(written, value, locale):
    assert _refuses(written, value, locale)


@pytest.mark.parametrize(
    ("written", "locale"),
    [
        (f"{TOTAL}.", "en"),
        (f"{TOTAL}, 5 items", "en"),
        (f"{TOTAL} (1.5 %)", "en"),
        (STYLE.format("font-weight: bold; color: #a00", TOTAL), "ru"),
        (STYLE.format("font-size: 130%", TOTAL), "ru"),
        (f"<span style='display: inline-block; width: 8mm; overflow-wrap: anywhere'>{TOTAL}</span>", "en"),
    ],
    ids=[
        "a full stop after it",
        "a comma and a count after it",
        "a rate in brackets after it",
        "its first digit bold and red",
        "its first digit larger",
        "wrapped in a narrow box",
    ],
)
def test_an_ordinary_design_of_the_total_is_accepted(written, locale):
    assert written_refusal(written, value=TOTAL, locale=locale) == ""


def test_a_value_within_a_number_the_template_writes_itself_is_shown():
    # given: the template writes 17 % itself, which holds the sample's 7 % rate after a digit;
    # the rate shows apart in the rates' table
    written = f"{VAT_NUMBER}<br>Discounts of up to 17 % apply."
    # when / then: a number the template writes whole counts as its own text
    assert written_refusal(written) == ""


@pytest.fixture(scope="module")
def russian() -> tuple[Invoice, str]:
    """The Russian sample invoice and the text the shipped template's pages show of it."""
    invoice = sample_documents("ru")[0]
    return invoice, pdf_layout(document_html(replace(SOURCE, locale="ru"), invoice)).shown_text


def _net(invoice: Invoice) -> str:
    return document_context(invoice)["document"]["rates"][0]["net"]  # 26,29 €


def test_a_value_within_another_value_of_the_document_shown_there_is_shown(russian):
    # given: a seller whose VAT number holds the net of the first rate after a 1 (a value of the
    # document, shown apart, of which the net's digits are a part)
    invoice, shown = russian
    net = _net(invoice)
    invoice = copy.deepcopy(invoice)
    invoice.data["seller"]["vat_number"] = f"1{net}"
    # when / then
    sample_check(invoice, shown.replace("DE123456789", f"1{net}"))


def test_a_value_run_into_a_digit_that_no_value_of_the_document_explains_is_left_out(russian):
    invoice, shown = russian
    net = _net(invoice)
    with pytest.raises(RenderError) as refused:
        sample_check(invoice, shown.replace("DE123456789", f"DE123456789 1{net}"))
    assert f"({{{{ document.rates.net }}}}: {net})" in str(refused.value)


@pytest.mark.parametrize(
    ("page", "value", "shown"),
    [
        ("Total\n1\u00a0159,70 €", "1\u00a0159,70 €", True),
        ("Total\n1 159,70 €", "1\u00a0159,70 €", False),
        ("Address: Hauptstrasse\n1, Berlin", "Hauptstrasse 1, Berlin", True),
        ("Haupt\nstrasse 1", "Hauptstrasse 1", True),
        ("Haupt strasse 1", "Hauptstrasse 1", False),
        ("Hauptstrasse1", "Hauptstrasse 1", True),
    ],
    ids=[
        "a Russian total's own group",
        "a Russian total's digits read apart",
        "its own spaces, one a line break",
        "wrapped inside a word",
        "a gap inside a word",
        "its space taken back",
    ],
)
def test_a_value_is_whole_where_the_page_parts_it_only_at_its_own_spaces_or_line_breaks(page, value, shown):
    assert value_shown(value, comparable_words(page)) is shown
