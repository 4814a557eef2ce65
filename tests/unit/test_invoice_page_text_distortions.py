"""Ways a template may draw a legal element so that no one can read it on the PDF while the
check of its page text (notifications/documents/page_text.py) still reads it: a transform that
keeps the area of the glyphs (what `_text_shown` measures, the square root of the matrix's
determinant) but squashes or smears them, and blocks laid out onto one another."""

import pytest

from notifications.documents.layout import pdf_layout
from notifications.documents.legal_elements import comparable_text

VALUE = "DE999888777"


def _shows(html: str, value: str = VALUE) -> bool:
    return comparable_text(value) in comparable_text(pdf_layout(html).shown_text)


@pytest.mark.xfail(
    strict=True,
    reason="defect: page_text.py measures a transformed font by sqrt(|det|), so a scale that "
    "squashes the glyphs to under 1 px tall while stretching them wide passes as readable",
)
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


@pytest.mark.xfail(
    strict=True,
    reason="defect: page_text.py reads each block apart, so a value laid out on top of another "
    "block's text (line-height: 0) is read though its glyphs are piled onto the other's",
)
def test_a_value_laid_out_over_another_block_s_text_is_not_read():
    html = (
        "<div style='line-height: 0'><p style='margin: 0'>" + VALUE + "</p>"
        "<p style='margin: 0'>XXXXXXXXXXX</p></div>"
    )
    assert not _shows(html)
