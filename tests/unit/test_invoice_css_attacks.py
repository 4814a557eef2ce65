"""A round of attacks through CSS and markup on what a reader reads of a legal value, each run
through the checks of a draft's pages: the shipped template with one value written otherwise,
its sample invoice laid out by WeasyPrint in this process. Refused: a glyph laid onto one of the
value's own (piled_text.py, PILED_GLYPH_EM), a tab drawn with no width (line_gaps.py), and a
digit brought against the value by generated content (::before, ::after, attr(), counters,
quotes, a leader, a footnote's call set on the line), by flex order or in a page's margin box.
Accepted: what WeasyPrint 70 draws in the order written (<bdo>, unicode-bidi, which it does not
support), a footnote's call raised as it is by default, a flex row of a label and the value. A
font by a data: address is never fetched, so it maps no digit to another glyph."""

import pytest

from notifications.documents.layout import pdf_layout
from tests.unit.shipped_sample import VAT_NUMBER, written_refusal

TOTAL = "{{ document.total }}"  # in Russian, 49,90 €: a number first
ON_IT = "<span style='position: relative'>{}<span style='position: absolute; {}; top: 0'>{}</span></span>"


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _style(css: str, html: str) -> str:
    return f"<style>{css}</style>{html}"


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (ON_IT.format(VAT_NUMBER, "left: 3.2em", "8"), VAT_NUMBER, "en"),
        (ON_IT.format(VAT_NUMBER, "right: 0.1em", "|"), VAT_NUMBER, "en"),
        (f"<span style='white-space: pre; tab-size: 0'>1\t</span>{TOTAL}", TOTAL, "ru"),
        (_style(".v::before { content: '1' }", f"<span class='v'>{TOTAL}</span>"), TOTAL, "ru"),
        (_style(".v::after { content: '0' }", f"<span class='v'>{VAT_NUMBER}</span>"), VAT_NUMBER, "en"),
        (
            _style(".v::after { content: attr(data-x) }", f"<span class='v' data-x='0'>{VAT_NUMBER}</span>"),
            VAT_NUMBER,
            "en",
        ),
        (
            _style(
                ".v { counter-reset: c 7 } .v::after { content: counter(c) }",
                f"<span class='v'>{VAT_NUMBER}</span>",
            ),
            VAT_NUMBER,
            "en",
        ),
        (_style(".v { quotes: '1' '0' }", f"<q class='v'>{VAT_NUMBER}</q>"), VAT_NUMBER, "en"),
        (_style(".l::before { content: leader('1') }", f"<span class='l'></span>{TOTAL}"), TOTAL, "ru"),
        (
            _style(
                ".f { float: footnote } ::footnote-call { content: '0'; vertical-align: baseline; "
                "font-size: inherit }",
                f"{VAT_NUMBER}<span class='f'>Registered in Berlin</span>",
            ),
            VAT_NUMBER,
            "en",
        ),
        (
            f"<span style='display: inline-flex'><span>{VAT_NUMBER}</span>"
            "<span style='order: -1'>1</span></span>",
            VAT_NUMBER,
            "en",
        ),
    ],
    ids=[
        "a digit laid onto one of its digits",
        "a bar laid onto its last digit",
        "a tab drawn with no width before the total",
        "a digit before it in ::before",
        "a digit after it in ::after",
        "a digit from an attribute",
        "a digit from a counter",
        "a digit from quotes",
        "a leader of digits before the total",
        "a footnote's call set on the line after it",
        "a digit ordered before it in a flex row",
    ],
)
def test_a_digit_brought_against_the_value_by_css_is_refused(written, value, locale):
    assert f"({value}: " in written_refusal(written, value=value, locale=locale)


@pytest.mark.parametrize(
    "written",
    [
        f"<bdo dir='rtl'>{VAT_NUMBER}</bdo>",
        f"<span style='direction: rtl; unicode-bidi: bidi-override'>{VAT_NUMBER}</span>",
        _style(".f { float: footnote }", f"{VAT_NUMBER}<span class='f'>Registered in Berlin</span>"),
        f"<span style='display: inline-flex; gap: 2mm'><span>VAT</span><span>{VAT_NUMBER}</span></span>",
        _style(
            ".v::first-letter { font-weight: bold }",
            f"<span class='v' style='display: inline-block'>{VAT_NUMBER}</span>",
        ),
    ],
    ids=[
        "in a bdo, which WeasyPrint 70 draws in order",
        "under unicode-bidi, which it does not support",
        "a footnote's call raised after it",
        "a flex row of a label and the value",
        "its first letter bold",
    ],
)
def test_a_design_drawing_the_value_as_written_is_accepted(written):
    assert written_refusal(written) == ""


def test_a_font_by_a_data_address_is_not_fetched_and_so_maps_no_digit():
    # a font whose glyphs for digits draw other digits would show another value than its text:
    # named by address it is refused (template_check.py), a data: address as any other
    html = (
        "<style>@font-face { font-family: Swapped; src: url(data:font/ttf;base64,AAEAAAAKAIAAAwAgT1MvMg==) }"
        "</style><p style='font-family: Swapped'>DE123456789</p>"
    )
    layout = pdf_layout(html)
    assert [address[:14] for address in layout.refused] == ["data:font/ttf;"]
