"""Attacks on what a reader sees against a value where the check read it apart: a digit too pale
to show a value but still seen (notifications/documents/painted_colours.py, MIN_SEEN_CONTRAST),
too small to show one but still seen, or clipped in part (shown_boxes.py, MIN_SEEN_FONT_SIZE_PT)
and a narrow space grouping a digit with a number (1&#x202F;159,70, value_places.py), each of
which the check must refuse; and beside them what no reader sees, an information separator
(U+001C to U+001F, drawn as a box), and the designs a shop would use, which it must accept. The
shipped template with one value written otherwise, its sample invoice laid out by WeasyPrint in
this process (texts laid over a digit's spaces: test_invoice_piled_spaces.py)."""

from typing import Any

import pytest

from notifications.documents.contrast import RGB, WHITE, contrast_ratio, over
from notifications.documents.page_text import laid_out_box
from notifications.documents.painted_colours import MIN_SEEN_CONTRAST, MIN_SHOWN_CONTRAST
from tests.unit.shipped_sample import VAT_NUMBER, written_refusal

TOTAL = "{{ document.total }}"  # in Russian, 159,70 €: a number first


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _refuses(written: str, *, value: str = VAT_NUMBER, locale: str = "en") -> bool:
    return f"({value}: " in written_refusal(written, value=value, locale=locale)


def _grey(level: int) -> RGB:
    return over((level / 255, level / 255, level / 255), 1.0, WHITE)  # as painted_colours.py rounds


def _palest_grey_seen() -> int:
    """The level of the palest grey whose text a reader still sees on white (MIN_SEEN_CONTRAST);
    the next one up is seen by none."""
    return max(level for level in range(256) if contrast_ratio(_grey(level), WHITE) >= MIN_SEEN_CONTRAST)


def _hex(level: int) -> str:
    return f"#{level:02x}{level:02x}{level:02x}"


SEEN = _hex(_palest_grey_seen())
UNSEEN = _hex(_palest_grey_seen() + 1)


def test_the_palest_grey_seen_is_far_paler_than_the_palest_that_shows_a_value():
    # #fcfcfc: 3 levels of 255 below white, where #d5d5d5 (1.47) is already too pale to count
    seen = _palest_grey_seen()
    assert contrast_ratio(_grey(seen + 1), WHITE) < MIN_SEEN_CONTRAST <= contrast_ratio(_grey(seen), WHITE)
    assert 245 <= seen < 254
    assert contrast_ratio(_grey(0xD5), WHITE) < MIN_SHOWN_CONTRAST


@pytest.mark.parametrize(
    "written",
    [
        f"{VAT_NUMBER}<span style='color: {SEEN}'>0</span>",
        f"<span style='color: {SEEN}'>1</span>{VAT_NUMBER}",
        f"{VAT_NUMBER}<span style='display: inline-block; color: {SEEN}'>0</span>",
        f"{VAT_NUMBER}<span style='color: rgb(0 0 0 / 2%)'>0</span>",
        f"{VAT_NUMBER}<span style='opacity: 0.03'>0</span>",
    ],
    ids=[
        "the palest grey seen after it",
        "the palest grey seen before it",
        "the palest grey seen in an inline-block",
        "a black of 2 % alpha",
        "a digit of 3 % opacity",
    ],
)
def test_a_digit_a_reader_still_sees_against_the_value_is_refused(written):
    assert _refuses(written)


CLIPPED = "<span style='display: inline-block; overflow: hidden; vertical-align: baseline; {}'>{}</span>"


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (f"{VAT_NUMBER}<span style='font-size: 3pt'>0</span>", VAT_NUMBER, "en"),
        (f"<span style='font-size: 1.5pt'>1</span>{TOTAL}", TOTAL, "ru"),
        (f"{VAT_NUMBER}" + CLIPPED.format("width: 0.35em", "0"), VAT_NUMBER, "en"),
        (CLIPPED.format("width: 0.4em; direction: rtl", "1") + TOTAL, TOTAL, "ru"),
    ],
    ids=[
        "a digit of 3 pt after it",
        "a digit of 1.5 pt before it",
        "a digit after it clipped to its left part",
        "a digit before it clipped to its right part",
    ],
)
def test_a_digit_too_small_or_clipped_to_show_a_value_but_seen_is_refused(written, value, locale):
    # under MIN_SHOWN_FONT_SIZE_PT, or not all inside its clip, a text shows no value, but a
    # reader still sees a mark there, as a pale digit (shown_boxes.py, MIN_SEEN_FONT_SIZE_PT)
    assert _refuses(written, value=value, locale=locale)


@pytest.mark.parametrize(
    "written",
    [
        f"{VAT_NUMBER}<span style='font-size: 0.5pt'>0</span>",
        f"{VAT_NUMBER}" + CLIPPED.format("width: 0", "0"),
        "<span style='position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)'>"
        f"VAT</span>{VAT_NUMBER}",
    ],
    ids=["a digit of half a point", "a digit clipped away whole", "a label for screen readers, clipped away"],
)
def test_a_text_no_reader_sees_beside_the_value_is_read_as_nothing(written):
    assert written_refusal(written) == ""


@pytest.mark.parametrize("colour", [UNSEEN, "white"], ids=["a grey just paler than the palest seen", "white"])
def test_a_digit_no_reader_sees_is_read_as_nothing(colour):
    assert written_refusal(f"{VAT_NUMBER}<span style='color: {colour}'>0</span>") == ""


@pytest.mark.parametrize("colour", ["#d5d5d5", SEEN], ids=["#d5d5d5", "the palest grey seen"])
def test_a_value_too_pale_to_show_is_refused_however_seen(colour):
    assert _refuses(f"<span style='color: {colour}'>{VAT_NUMBER}</span>")


@pytest.mark.parametrize(
    ("written", "value", "locale"),
    [
        (f"1&#x202F;{TOTAL}", TOTAL, "ru"),
        (f"1&#x2009;{TOTAL}", TOTAL, "ru"),
        (f"<span>1</span>&#x202F;<b>{TOTAL}</b>", TOTAL, "ru"),
        (f"{VAT_NUMBER}&#x202F;0", VAT_NUMBER, "en"),
    ],
    ids=[
        "a narrow no-break space before the total (1 159,70 €)",
        "a thin space before the total",
        "a narrow no-break space between boxes",
        "a narrow no-break space after the VAT number",
    ],
)
def test_a_digit_grouped_with_the_value_by_a_narrow_space_is_refused(written, value, locale):
    assert _refuses(written, value=value, locale=locale)


@pytest.mark.parametrize(
    "written",
    [f"&#x202F;{TOTAL}&#x202F;", f"№&#x202F;{TOTAL}", f"{TOTAL}&nbsp;/&#x202F;1"],
    ids=["narrow spaces at a cell's edges", "a sign before", "a slash after"],
)
def test_a_narrow_space_between_no_two_digits_sets_nothing_together(written):
    assert written_refusal(written, value=TOTAL, locale="ru") == ""


def _drawn_width(html: str) -> float:
    """The width of the one text of `html` as laid out."""
    from weasyprint import HTML
    from weasyprint.formatting_structure.boxes import TextBox

    page = laid_out_box(HTML(string=html).render().pages[0])
    texts: list[Any] = [box for box in page.descendants() if isinstance(box, TextBox)]
    [text] = texts
    return text.width


@pytest.mark.parametrize("separator", ["&#x1C;", "&#x1D;", "&#x1E;", "&#x1F;"])
def test_an_information_separator_is_drawn_as_a_mark_that_sets_a_digit_apart(separator):
    # given: no font here has a glyph for U+001C to U+001F, so the page draws its box for a
    # character it lacks (.notdef), half an em wide: a mark between, as a slash is, not a gap
    # the digits close over (legal_elements.py reads it as neither a letter nor a digit)
    style = "<p style='font: 20px \"DejaVu Sans\"'>"
    assert _drawn_width(f"{style}1{separator}0</p>") - _drawn_width(f"{style}10</p>") > 0.4 * 20
    # when / then
    assert written_refusal(f"{VAT_NUMBER}{separator}0") == ""
    assert written_refusal(f"1{separator}{VAT_NUMBER}") == ""
