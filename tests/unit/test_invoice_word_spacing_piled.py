"""A negative word-spacing sets a word back onto the one before it, or off the page's left edge,
while its text box keeps its width: `X DE999888777` with word-spacing -60px (a 16 px font) draws
E999X888777, the VAT number's head off the page and its tail on the X. The check of the page
text (piled_text.piled_within) must not read it; a word-spacing that only tightens must be."""

import pytest

from notifications.documents.layout import pdf_layout
from notifications.documents.value_places import comparable_text

VALUE = "DE999888777"


def _shows(html: str, value: str = VALUE) -> bool:
    return comparable_text(value) in comparable_text(pdf_layout(html).shown_text)


@pytest.mark.parametrize("spacing", ["-60px", "-100px", "-1em"])
def test_a_word_set_back_onto_the_one_before_is_not_read(spacing):
    assert not _shows(f"<p style='word-spacing: {spacing}'>X {VALUE}</p>")


@pytest.mark.parametrize("spacing", ["-0.1em", "-2px", "0.5em", "normal"])
def test_a_word_spacing_that_tightens_or_widens_is_read(spacing):
    assert _shows(f"<p style='word-spacing: {spacing}'>VAT number {VALUE}</p>")


def test_a_space_taken_back_by_word_spacing_does_not_set_a_value_apart():
    # read from the gap the page leaves, not the space in the text (drawn_spaces.py)
    shown = pdf_layout("<p><span style='word-spacing: -0.3em'>1 </span>19 %</p>").shown_text
    assert "1 19" not in shown, repr(shown)
