"""Attacks on what a reader sees against a value where the check read it apart: a digit too pale
to show a value but still seen (notifications/documents/painted_colours.py, MIN_SEEN_CONTRAST),
which the check must refuse; and beside it what no reader sees, which it must accept. The
shipped template with one value written otherwise, its sample invoice laid out by WeasyPrint in
this process (texts laid over a digit's spaces: test_invoice_piled_spaces.py)."""

import pytest

from notifications.documents.contrast import RGB, WHITE, contrast_ratio, over
from notifications.documents.painted_colours import MIN_SEEN_CONTRAST, MIN_SHOWN_CONTRAST
from tests.unit.shipped_sample import VAT_NUMBER, written_refusal


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _refuses(written: str) -> bool:
    return f"({VAT_NUMBER}: " in written_refusal(written)


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


@pytest.mark.parametrize("colour", [UNSEEN, "white"], ids=["a grey just paler than the palest seen", "white"])
def test_a_digit_no_reader_sees_is_read_as_nothing(colour):
    assert written_refusal(f"{VAT_NUMBER}<span style='color: {colour}'>0</span>") == ""


@pytest.mark.parametrize("colour", ["#d5d5d5", SEEN], ids=["#d5d5d5", "the palest grey seen"])
def test_a_value_too_pale_to_show_is_refused_however_seen(colour):
    assert _refuses(f"<span style='color: {colour}'>{VAT_NUMBER}</span>")
