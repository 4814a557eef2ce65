"""Ways a template may draw a legal element so that no one can read it on the PDF, which the
check of its page text (notifications/documents/page_text.py) must not read: a transform that
keeps the area of the glyphs but squashes or smears them (measured along the axis it shrinks
most), and texts laid out onto one another or letters onto their neighbours
(notifications/documents/piled_text.py). Next to
each, the legitimate layout that comes nearest and must still be read."""

import pytest

from notifications.documents.layout import pdf_layout
from notifications.documents.piled_text import GlyphBand, piled
from notifications.documents.value_places import comparable_text

VALUE = "DE999888777"


def _shows(html: str, value: str = VALUE) -> bool:
    return comparable_text(value) in comparable_text(pdf_layout(html).shown_text)


@pytest.mark.parametrize(
    "transform",
    ["scale(2.5, 0.04)", "scaleY(0.02)", "skewX(88deg)"],
    ids=["squashed and stretched", "squashed, large font", "skewed flat"],
)
def test_a_value_squashed_or_skewed_flat_is_not_read(transform):
    # given: 20 and 40 px fonts whose transformed glyphs are under 1 px tall (or smeared
    # along a line at 88 degrees); rendered, the PDF shows a grey hairline, no digits
    size = "40px" if transform == "scaleY(0.02)" else "20px"
    html = f"<p style='font-size: {size}; transform: {transform}; transform-origin: left top'>{VALUE}</p>"
    # then
    assert not _shows(html)


@pytest.mark.parametrize(
    "transform",
    ["skewX(-12deg)", "skewX(45deg)", "scale(3, 0.5)", "rotate(30deg)"],
    ids=["slanted", "skewed half flat", "stretched wide", "tilted"],
)
def test_a_value_skewed_or_stretched_but_legible_is_read(transform):
    html = f"<p style='font-size: 16px; transform: {transform}; transform-origin: left top'>{VALUE}</p>"
    assert _shows(html)


@pytest.mark.parametrize(
    "html",
    [
        "<div style='line-height: 0'><p style='margin: 0'>" + VALUE + "</p>"
        "<p style='margin: 0'>XXXXXXXXXXX</p></div>",
        "<div style='line-height: 0'><p style='margin: 0'>XXXXXXXXXXX</p>"
        "<p style='margin: 0'>" + VALUE + "</p></div>",
        f"<p style='margin: 0'>{VALUE}</p><p style='margin: -1em 0 0 2em'>XXXXXX</p>",
        f"<p style='position: relative'>{VALUE}<span style='position: absolute; left: 0'>888888</span></p>",
    ],
    ids=["under another block", "over another block", "a block pulled up onto it", "positioned onto it"],
)
def test_a_value_laid_out_over_another_block_s_text_is_not_read(html):
    assert not _shows(html)


@pytest.mark.parametrize(
    "html",
    [
        f"<p style='line-height: 0.8; width: 40mm'>Musterstraße 123 {VALUE} 10115 Berlin-Mitte</p>",
        f"<p style='margin: 0'>{VALUE}</p><p style='margin: -0.3em 0 0'>Berlin-Charlottenburg</p>",
        "<p>DE<span style='margin-left: -0.2em'>999</span>888<sup>777</sup></p>",
        "<p style='margin: 0'>Musterstraße 123, 10115 Berlin</p><p style='margin: 0'>VAT: "
        f"<span style='display: inline-block; transform: rotate(90deg)'>{VALUE}</span></p>"
        "<p style='margin: 0'>support@example.com, +49 30 1234567</p>",
    ],
    ids=["tight lines", "a block pulled up close", "parts set close", "crossing the lines around it"],
)
def test_a_value_beside_or_across_other_text_is_read(html):
    assert _shows(html)


@pytest.mark.parametrize(
    ("spacing", "shown"),
    [
        ("letter-spacing: -1em", False),
        ("letter-spacing: -0.5em", False),
        ("letter-spacing: -0.1em", True),
        ("letter-spacing: 0.3em", True),
    ],
    ids=["set back", "half set back", "tight", "spaced"],
)
def test_a_value_whose_letters_are_set_onto_one_another_is_not_read(spacing, shown):
    assert _shows(f"<p style='{spacing}'>{VALUE}</p>") is shown


def test_texts_end_to_end_or_a_line_apart_are_not_piled_and_one_laid_along_another_is():
    # given: 10 px fonts' bands (7 px tall): a text, the next on its line, one on the line
    # below, and a shorter one laid along the first, 3 px lower
    def band(x: float, y: float, width: float) -> GlyphBand:
        rect = (x, y, x + width, y + 7.0)
        return GlyphBand(rect, None, rect, 10.0)

    bands = [band(0, 0, 100), band(100, 0, 100), band(0, 12, 100), band(10, 3, 60)]
    # when / then
    assert piled(bands) == {0, 3}
