"""A digit set a word space or less from a value that starts or ends with one: Russian groups a
number's digits with a no-break space (Babel's ru: 1 159,70 €), so a reader reads
`1&nbsp;{{ document.total }}` as another total, as any digit the page draws a word space from
a number. The reading of the page (drawn_spaces.py, drawn_lines.py, digit_groups.py) measures
the gap the page draws between two digits, and the check of the legal elements
(value_places.py) reads a gap no wider than a word space of their font as grouping them, in any
language, whatever character, margin or padding draws it. A wider gap sets them apart: a figure
space, a table's cells with their padding, a sign or a word between. The shipped template with
one value written otherwise, its sample invoice laid out by WeasyPrint in this process."""

import copy
from dataclasses import replace

import pytest

from notifications.documents.layout import pdf_layout
from notifications.documents.legal_elements import legal_elements_check
from notifications.documents.samples import sample_documents
from notifications.documents.template import document_html
from tests.unit.shipped_sample import SOURCE, VAT_NUMBER, written_refusal

TOTAL = "{{ document.total }}"  # in Russian, 49,90 €: a number first
RATE = "{{ row.rate }}"  # 19 %, named in a refusal as the element it is
NAMED = {RATE: "{{ document.rates.rate }}"}
INLINE_BLOCK = "display: inline-block"


def _cells(table: str, left: str, right: str) -> str:
    """A table of a cell with a digit, right-aligned, and the total's cell after it."""
    return (
        f"<table style='border-collapse: collapse; {table}'><tr><td style='padding: {left}; text-align: "
        f"right'>1</td><td style='padding: {right}; text-align: left'>{TOTAL}</td></tr></table>"
    )


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _refuses(written: str, value: str, locale: str) -> bool:
    return f"({NAMED.get(value, value)}: " in written_refusal(written, value=value, locale=locale)


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (f"1&nbsp;{TOTAL}", TOTAL, "ru"),
        (f"1 {TOTAL}", TOTAL, "ru"),
        (f"<span>1</span> <b>{TOTAL}</b>", TOTAL, "ru"),
        (f"<span>1 </span>{TOTAL}", TOTAL, "ru"),
        (f"<span>1</span><span style='margin-left: 0.3em'>{TOTAL}</span>", TOTAL, "ru"),
        (f"<span style='{INLINE_BLOCK}; margin-right: 0.3em'>1</span>{TOTAL}", TOTAL, "ru"),
        (f"<span style='font-family: monospace'>1 {TOTAL}</span>", TOTAL, "ru"),
        (_cells("", "0 0.15em 0 0", "0 0 0 0.15em"), TOTAL, "ru"),
        (f"1&nbsp;{RATE}", RATE, "en"),
        (f"{VAT_NUMBER}&nbsp;0", VAT_NUMBER, "en"),
        (f"{VAT_NUMBER}<span style='{INLINE_BLOCK}; margin-left: 0.3em'>0</span>", VAT_NUMBER, "en"),
    ],
    ids=[
        "a no-break space before the total (1 49,90 €)",
        "a word space before the total",
        "a word space between boxes",
        "a box ending in a word space",
        "a margin a word space wide",
        "an inline-block a word space before",
        "a monospaced word space",
        "table cells a word space apart",
        "a no-break space before a rate (1 19 %)",
        "a no-break space after the VAT number",
        "an inline-block a word space after the VAT number",
    ],
)
def test_a_digit_a_word_space_from_the_value_groups_with_it_and_is_refused(written, value, locale):
    assert _refuses(written, value, locale)


@pytest.mark.parametrize(
    "written",
    [
        f"2 &#xD7; {TOTAL}",
        f"1: {TOTAL}",
        f"1&#x2007;{TOTAL}",
        f"1&nbsp;&nbsp;&nbsp;{TOTAL}",
        f"<span style='{INLINE_BLOCK}; margin-right: 2mm'>1</span>{TOTAL}",
        f"<span style='{INLINE_BLOCK}; width: 25mm; text-align: left'>№ 1</span>{TOTAL}",
        _cells("font-size: 12pt", "1.5mm 1mm", "1.5mm 1mm"),
        _cells("", "0 2mm 0 0", "0"),
    ],
    ids=[
        "a quantity times the amount",
        "a numbered label",
        "a figure space",
        "three no-break spaces",
        "a badge with a margin",
        "a label in a fixed width",
        "table cells with the shipped template's padding, in 12 pt",
        "table cells with a padding of 2 mm",
    ],
)
def test_a_digit_set_further_than_a_word_space_from_the_total_is_apart(written):
    assert written_refusal(written, value=TOTAL, locale="ru") == ""


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_a_real_invoice_of_250_lines_of_thousands_shows_every_value(locale):
    # given: the shipped template, and an invoice whose amounts run past 1 000, which Russian
    # groups with a no-break space (1 234,56 €) and English with a comma
    invoice = sample_documents(locale)[0]
    sample = invoice.data["lines"]
    lines = []
    for n in range(250):
        line = copy.deepcopy(sample[n % 2])
        amount = 100_000 + n * 1_237
        line |= {"name": f"{n:03d} product", "quantity": n % 9 + 1, "unit_price": amount, "unit_net": amount}
        line |= {"net": amount * 3, "vat": amount // 5, "total": amount * 3 + amount // 5}
        lines.append(line)
    invoice.data["lines"] = lines
    source = replace(SOURCE, locale=locale)
    # when
    shown = pdf_layout(document_html(source, invoice)).shown_text
    # then
    assert "1\u00a0000" in shown or "1,000" in shown
    legal_elements_check(invoice, shown, source.label, sample=False)  # raises if one is left out
