"""Texts of no glyph laid over a digit's spaces, which piled_text.py must not count as piled onto
it: a text piles only where its inked glyphs lie along another's, so a text of no-break spaces
and invisible characters piles on nothing and a text's spaces are no place to pile on. A digit
counted as piled is read as not shown, which would part it from the value against it; and a
badge set over a value's trailing spaces would hide the value. The shipped template with the
VAT number written otherwise, its sample invoice laid out by WeasyPrint in this process."""

import pytest

from tests.unit.shipped_sample import VAT_NUMBER, written_refusal

POSITIONED = (
    "<span style='position: relative'>0{}<span style='position: absolute; left: {}; top: 0'>{}</span></span>"
)


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _refuses(written: str) -> bool:
    return f"({VAT_NUMBER}: " in written_refusal(written)


@pytest.mark.parametrize(
    "written",
    [
        VAT_NUMBER + POSITIONED.format("&nbsp;" * 4, "0.7em", "&nbsp;" * 4 + "&#x2060;"),
        VAT_NUMBER + POSITIONED.format("&nbsp;" * 4, "-0.3em", "&#x200B;" + "&nbsp;" * 6 + "&#x200B;"),
        VAT_NUMBER + POSITIONED.format("", "0", "&nbsp;" * 6 + "&#xFEFF;"),
    ],
    ids=[
        "no-break spaces and a word joiner on its spaces",
        "zero-width and no-break spaces over it and its spaces",
        "no-break spaces and a zero-width no-break space over it",
    ],
)
def test_a_digit_under_a_text_of_no_glyph_is_still_read_against_the_value(written):
    assert _refuses(written)


def test_a_digit_under_a_text_of_blank_glyphs_is_still_read_against_the_value():
    # a blank glyph (U+2800, a braille pattern blank) has an advance and no ink: Pango's ink
    # extents of the digit's own text end at the digit, so a text of them laid over its blanks
    # piles on nothing (drawn_spaces.py, pango_glyphs.py)
    assert _refuses(VAT_NUMBER + POSITIONED.format("&#x2800;" * 4, "0.7em", "&#x2800;" * 4))


def test_a_digit_whose_spaces_another_text_s_marks_bracket_is_still_read_against_the_value():
    # given: the digit's own text ends in a mark past its spaces, and another text's marks lie
    # on those spaces, either side of nothing: the two texts' first-to-last glyph spans overlap
    # by more than an em, while no glyph of one lies on a glyph of the other (the page shows
    # DE1234567890 . ..)
    written = VAT_NUMBER + POSITIONED.format("&nbsp;" * 4 + ".", "0.7em", "." + "&nbsp;" * 4 + ".")
    # when / then: piled_text.py compares their inked glyphs' runs, not their spans
    assert _refuses(written)


def test_a_badge_set_over_the_value_s_own_trailing_spaces_is_accepted():
    # the spaces after the value are no place a text piles on: the badge leaves its glyphs be
    written = (
        f"<span style='position: relative'>{VAT_NUMBER}{'&nbsp;' * 6}"
        "<span style='position: absolute; right: 0; top: 0'>EU</span></span>"
    )
    assert written_refusal(written) == ""
