"""Ways a template may paint over a legal element, or set it so that the PDF shows other
characters, while the text of its boxes still holds it: what the check of its page text
(notifications/documents/page_text.py, paint_order.py) must not read; and the ordinary designs
that paint around a value, which it must. Each HTML is laid out by WeasyPrint in this process; a
value's squashed or piled glyphs are test_invoice_page_text_distortions.py's."""

import pytest

from notifications.documents.layout import pdf_layout
from notifications.documents.value_places import comparable_text

VALUE = "DE999888777"


def _shows(html: str, value: str = VALUE) -> bool:
    return comparable_text(value) in comparable_text(pdf_layout(html).shown_text)


@pytest.mark.parametrize(
    "html",
    [
        # drawn before its stacking context's block backgrounds: its parent's white covers it
        f"<div style='background: white'><span style='position: relative; z-index: -1'>{VALUE}</span></div>",
        # an outline is drawn after its box's content: inside the box with a negative offset
        f"<p style='display: inline-block; outline: 10mm solid white; outline-offset: -10mm'>{VALUE}</p>",
        # and over what overflows the box (a block of no height) with none
        f"<div style='height: 0; outline: 15mm solid white'><p style='margin: 0'>{VALUE}</p></div>",
        # a border image is drawn under the content, over all of it with `fill`
        f"<p style='border: 1px solid; border-image: linear-gradient(black, black) 1 fill'>{VALUE}</p>",
    ],
    ids=[
        "under its parent's background",
        "under its own outline",
        "under its parent's outline",
        "on its border image's fill",
    ],
)
def test_a_value_painted_over_by_its_own_boxes_is_not_read(html):
    assert not _shows(html)


@pytest.mark.parametrize(
    "html",
    [
        f"<p style='outline: 1px solid black'>{VALUE}</p>",
        f"<p style='outline: 2px dashed #ccc; outline-offset: 2mm; padding: 1mm'>{VALUE}</p>",
        f"<p style='display: inline-block; outline: 1mm solid; outline-offset: -1mm; padding: 3mm'>"
        f"{VALUE}</p>",
        f"<p style='position: relative; z-index: 2; background: white'>{VALUE}</p>",
        f"<div style='outline: 3mm solid white'><p>{VALUE}</p></div>",
        f"<p style='border: 2px solid; border-image: linear-gradient(#ccc, #ccc) 1'>{VALUE}</p>",
    ],
    ids=[
        "framed",
        "framed apart",
        "framed inside its padding",
        "raised",
        "white frame around its block",
        "framed by a border image",
    ],
)
def test_a_value_framed_by_an_outline_or_raised_is_read(html):
    assert _shows(html)


def test_a_value_overflowing_onto_its_parent_s_border_of_its_colour_is_not_read():
    html = f"<div style='height: 0; border-bottom: 15mm solid black'><p style='margin: 0'>{VALUE}</p></div>"
    assert not _shows(html)


def test_a_value_on_a_column_rule_of_its_colour_is_not_read():
    rule = "columns: 2; column-gap: 2mm; column-rule: 150mm solid black"
    assert not _shows(f"<div style='{rule}'><p>{VALUE}</p><p>{VALUE[::-1]}</p></div>")


def test_a_value_on_its_own_underline_of_its_colour_is_not_read():
    style = "text-decoration: underline; text-decoration-thickness: 1.2em; text-underline-offset: -1em"
    assert not _shows(f"<p style='{style}'>{VALUE}</p>")


@pytest.mark.parametrize(
    "html",
    [
        f"<p style='position: relative'>{VALUE}<span style='position: absolute; left: 0; top: 0; "
        "width: 40mm; height: 5mm; background: white'></span></p>",
        f"<p>{VALUE}<span style='margin-left: -12em; padding: 0 6em; background: white'></span></p>",
        f"<p style='position: relative'>{VALUE}<span style='position: absolute; left: 10mm; top: 3mm; "
        "outline: 8mm solid white'></span></p>",
        f"<p style='position: relative'>{VALUE}<span style='position: absolute; left: 10mm; top: 5mm; "
        "width: 0; height: 0; box-shadow: 0 0 0 8mm white'></span></p>",
    ],
    ids=["a box positioned over it", "a later inline box's background", "another box's outline", "a shadow"],
)
def test_a_value_a_box_paints_over_is_not_read(html):
    assert not _shows(html)


@pytest.mark.parametrize(
    "html",
    [
        "<table style='border-collapse: collapse'><tr><td style='border: 1px solid black; padding: 1mm'>"
        f"{VALUE}</td><td style='border: 2px solid #333'>12.00</td></tr></table>",
        "<table style='border: 2px solid'><tr>"
        f"<td style='border: 1px solid; padding: 0'>{VALUE}</td></tr></table>",
        f"<p style='text-decoration: underline'>{VALUE}</p>",
        f"<p style='text-decoration: underline double 2px; text-underline-offset: 1px'>{VALUE}</p>",
        f"<p style='text-decoration: underline 0.5em #ff6; text-underline-offset: -0.4em'>{VALUE}</p>",
        "<div style='position: absolute; top: 0; left: 0; right: 0; height: 20mm; background: #234; "
        f"color: white'>Invoice</div><p style='margin-top: 25mm'>{VALUE}</p>",
        f"<div style='columns: 2; column-rule: 1px solid black'><p>{VALUE}</p><p>VAT 19 %</p></div>",
        f"<p style='letter-spacing: -0.05em'>{VALUE}</p>",
        f"<p><span style='background: #eee; border: 1px solid #999; padding: 0 1mm'>{VALUE}</span> paid</p>",
        f"<p style='position: relative'>VAT number: {VALUE}<span style='position: absolute; right: 0; "
        "top: -8mm; border: 2px solid red; color: red; padding: 1mm'>PAID</span></p>",
    ],
    ids=[
        "collapsed table borders",
        "table borders close",
        "underlined",
        "double underline",
        "highlighted",
        "header box above",
        "columns with a rule",
        "tight letters",
        "boxed",
        "a stamp beside it",
    ],
)
def test_ordinary_designs_painted_around_a_value_are_read(html):
    assert _shows(html)


def test_a_value_drawn_backwards_by_a_bidi_override_is_not_read():
    assert not _shows(f"<p>VAT number: &#x202E;{VALUE}</p>")


def test_a_value_in_device_cyan_on_the_cyan_a_viewer_paints_for_it_is_not_read():
    assert not _shows(f"<p style='background: rgb(0 173 239); color: device-cmyk(1 0 0 0)'>{VALUE}</p>")
