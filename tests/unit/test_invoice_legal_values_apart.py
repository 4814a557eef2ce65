"""Attacks on where the check of the legal elements (legal_elements.py) finds a value apart
from other letters and digits: a digit and a group or decimal separator run into a number
(1.{{ rate }} shows 1.19 %, another rate), which must count as left out; and a value a design
sets apart by a margin or padding of its own inline box, with no space character between, which
must count as shown. The shipped template's sample text is changed as a template could, or a
small HTML laid out by WeasyPrint in this process."""

import pytest

from notifications.content.errors import RenderError
from notifications.documents.context import document_context
from notifications.documents.layout import pdf_layout
from orders.models import Invoice
from tests.unit.shipped_sample import sample_check, shipped_sample_shown


@pytest.fixture(scope="module")
def shipped() -> tuple[Invoice, str]:
    return shipped_sample_shown()


@pytest.mark.parametrize(
    ("before", "after"),
    [("1.", ""), ("0,", ""), ("1'", ""), ("1.", ".")],
    ids=["1. before a rate", "0, before a rate", "a Swiss group separator before", "and a full stop after"],
)
def test_a_rate_run_into_a_number_by_a_separator_is_left_out(shipped, before, after):
    # given: every place the page shows the 19 % rate, written as another number (1.19 %)
    invoice, shown = shipped
    rate = document_context(invoice)["document"]["rates"][0]["rate"]
    assert rate[0].isdigit()
    assert rate in shown
    # when / then
    with pytest.raises(RenderError) as refused:
        sample_check(invoice, shown.replace(rate, f"{before}{rate}{after}"))
    assert rate in str(refused.value)


@pytest.mark.parametrize(
    "written",
    ["Rates: 7 %, {rate}", "7 %,{rate}", "({rate})", "{rate}.", "Item 1. {rate}"],
    ids=["a list", "a list with no space", "in brackets", "before a full stop", "after a numbered label"],
)
def test_a_rate_after_punctuation_that_makes_no_number_is_shown(shipped, written):
    invoice, shown = shipped
    rate = document_context(invoice)["document"]["rates"][0]["rate"]
    sample_check(invoice, shown.replace(rate, written.format(rate=rate)))  # raises if left out


VAT = "DE999888777"


@pytest.mark.parametrize(
    "html",
    [
        f"<p><span>VAT</span><span style='margin-left: 5mm'>{VAT}</span></p>",
        f"<p>VAT<span style='padding-left: 4mm'>{VAT}</span></p>",
        f"<p><span style='margin-right: 3mm'>VAT</span>{VAT}</p>",
        f"<p><span style='padding-right: 1em'>Invoice</span><b>{VAT}</b></p>",
    ],
    ids=["after a margin", "after a padding", "after its label's right margin", "after its label's padding"],
)
def test_a_value_set_apart_by_an_inline_box_s_margin_is_apart(html):
    shown = pdf_layout(html).shown_text
    assert " " in shown.split(VAT)[0][-2:] or "\n" in shown.split(VAT)[0][-2:], repr(shown)


@pytest.mark.parametrize(
    "html",
    [
        f"<p>VAT<span>{VAT}</span></p>",
        f"<p>1<span style='margin-left: -2mm'>{VAT}</span></p>",
        f"<p><span style='margin-right: -5mm'>1</span><span style='margin-left: 5mm'>{VAT}</span></p>",
        f"<p>1<span style='margin-left: 5mm; position: relative; left: -5mm'>{VAT}</span></p>",
    ],
    ids=["no margin", "a negative margin", "margins that cancel", "moved back onto it"],
)
def test_a_value_with_no_gap_before_it_is_run_in(html):
    shown = pdf_layout(html).shown_text
    assert shown.split(VAT)[0][-1] not in " \n", repr(shown)
