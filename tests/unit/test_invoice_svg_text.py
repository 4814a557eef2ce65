"""Text an inline SVG image draws (notifications/documents/svg_text.py), which the check of the
legal elements cannot read: a template whose SVG draws any is refused, with the reason, whatever
element draws it; an SVG of shapes alone (a logo) passes; and an SVG named by address is never
fetched, so it draws nothing. The shipped template, or a small HTML, laid out by WeasyPrint in
this process."""

import pytest

from notifications.documents.layout import layouts_as_json, layouts_from_json, pdf_layout
from tests.unit.shipped_sample import VAT_NUMBER, written_refusal

SVG = "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='16' viewBox='0 0 40 16'>{}</svg>"
LOGO = SVG.format(
    "<title>Example Shop</title><desc>Our logo</desc>"
    "<a href='https://example.com/'>\n  <path d='M0 0H40V16H0Z' fill='#136'/>\n</a>"
    "<circle cx='8' cy='8' r='6' fill='white'/>"
)
REASON = "draws text in an SVG image"


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def test_a_digit_an_svg_draws_against_the_value_is_refused_as_text_the_check_cannot_read():
    # given: DE123456789 and an SVG drawing a 0 right after it, which a reader reads as one number
    written = (
        f"{VAT_NUMBER}<svg width='9' height='13' style='vertical-align: baseline'>"
        "<text x='0' y='12' font-size='13.33' font-family='sans-serif'>0</text></svg>"
    )
    # when
    refusal = written_refusal(written)
    # then
    assert REASON in refusal
    assert "'0'" in refusal
    assert "Write the text as HTML text" in refusal


@pytest.mark.parametrize(
    "drawing",
    [
        "<text x='0' y='12'>Paid</text>",
        "<text x='0' y='12'><tspan>Pa</tspan><tspan dx='1'>id</tspan></text>",
        "<tspan x='0' y='12'>Paid</tspan>",
        "<a href='#'>Paid</a>",
        "<defs><path id='p' d='M0 12H40'/><text id='t'>Paid</text></defs><use href='#t' y='12'/>",
        "<defs><path id='p' d='M0 12H40'/></defs><text><textPath href='#p'>Paid</textPath></text>",
        "<svg x='0' y='0'><text x='0' y='12'>Paid</text></svg>",
    ],
    ids=[
        "a text",
        "its tspans",
        "a tspan alone",
        "a link's text",
        "a text used from defs",
        "a textPath",
        "a nested svg",
    ],
)
def test_an_svg_drawing_text_anywhere_is_refused_naming_the_text(drawing):
    refusal = written_refusal(f"{VAT_NUMBER} {SVG.format(drawing)}")
    assert REASON in refusal
    assert "Paid" in refusal


def test_a_logo_of_shapes_alone_is_accepted_beside_the_value():
    # its title and description are not drawn, and its link holds shapes and spaces only
    assert written_refusal(f"{LOGO} {VAT_NUMBER}") == ""


@pytest.mark.parametrize(
    "html",
    [
        "<img src=\"data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'><text y='9'>0</text></svg>\">",
        "<p style=\"background: url('data:image/svg+xml,<svg xmlns=&quot;http://www.w3.org/2000/svg&quot;>"
        "<text y=&quot;9&quot;>0</text></svg>')\">x</p>",
    ],
    ids=["an image", "a background"],
)
def test_an_svg_by_address_is_not_fetched_and_so_draws_no_text(html):
    layout = pdf_layout(html)
    assert {url[:19] for url in layout.refused} == {"data:image/svg+xml,"}
    assert layout.svg_texts == ()


def test_the_layout_child_reports_the_texts_an_svg_draws():
    # the child's layouts come back as JSON (layout.py): the texts go with them
    layout = pdf_layout("<p>" + SVG.format("<text y='12'>  Paid \n in full </text>") + "</p>")
    assert layout.svg_texts == ("Paid in full",)
    assert layouts_from_json(layouts_as_json([layout])) == [layout]
