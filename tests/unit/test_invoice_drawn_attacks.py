"""Attacks on the reading of texts drawn together (notifications/documents/drawn_lines.py) and of
spaces as the page draws them (drawn_spaces.py), through the whole check of a draft: the shipped
template with the seller's VAT number written against a digit in the ways a template can (a hair
space, a box turned upside down, a box pulled over a space, a pale digit), which the check must
refuse (a digit an inline SVG draws: test_invoice_svg_text.py), and ordinary designs a shop
would use beside it, which it must accept. The sample invoice is laid out by WeasyPrint in this
process."""

import pytest

from tests.unit.shipped_sample import VAT_NUMBER as VALUE
from tests.unit.shipped_sample import written_refusal

INLINE_BLOCK = "display: inline-block"


@pytest.fixture(autouse=True)
def _vat_number(settings):
    settings.SHOP_VAT_NUMBER = "DE123456789"  # the tests' settings leave it empty: nothing to check


def _refusal(written: str) -> str:
    """The check's refusal of the shipped template with the VAT number written as `written`
    ('' where it accepts it)."""
    return written_refusal(written)


def _refuses_the_value(written: str) -> bool:
    return f"({VALUE}: " in _refusal(written)


@pytest.mark.parametrize(
    "written",
    [
        f"{VALUE}<span style='font-size: 0'>x</span>0",
        f"{VALUE}<span style='{INLINE_BLOCK}; transform: scale(-1, 1)'>0</span>",
        f"{VALUE}<span style='letter-spacing: 0.3em'>0</span>",
        f"<span style='letter-spacing: 0.3em'>{VALUE}0</span>",
        f"{VALUE}<img alt='0'>",
        f"{VALUE}<span style='{INLINE_BLOCK}; direction: rtl'>0</span>",
        f"<span style='{INLINE_BLOCK}; direction: rtl'>1</span>{VALUE}",
        f"{VALUE}<span style='{INLINE_BLOCK}; vertical-align: 0.2em'>0</span>",
        f"<span style='position: relative'>{VALUE}<span style='position: absolute; left: 100.3%; "
        "top: 0.37px'>0</span></span>",
        f"<span style='{INLINE_BLOCK}'>{VALUE}</span>"
        f"<span style='{INLINE_BLOCK}; margin-left: -0.2em'>0</span>",
        f"{VALUE}<span style='{INLINE_BLOCK}'>&#x200B;0</span>",
        f"{VALUE}<span style='{INLINE_BLOCK}; font-size: 200%; line-height: 1'>0</span>",
        "<span style='display: block; columns: 2; column-gap: 0; width: 60mm'>"
        f"<span style='display: block; text-align: right'>{VALUE}</span>"
        "<span style='display: block'>0</span></span>",
        f"<ul style='margin: 0; padding: 0 0 0 3em; list-style: \"1\" outside'><li>{VALUE}</li></ul>",
        f"<ul style='margin: 0; padding: 0; list-style: \"1\" inside'><li>{VALUE}</li></ul>",
        f"{VALUE} <span style='{INLINE_BLOCK}; margin-left: -0.3em'>0</span>",
        f"{VALUE}<span style='{INLINE_BLOCK}; margin-left: -0.35em'>&nbsp;0</span>",
        f"<span style='{INLINE_BLOCK}; margin-right: -0.35em'>1&nbsp;</span>{VALUE}",
        f"{VALUE}<span style='{INLINE_BLOCK}; direction: rtl; margin-left: -0.35em'>&nbsp;0</span>",
        f"{VALUE}<span> </span><span style='{INLINE_BLOCK}; margin-left: -0.3em'>0</span>",
        f"{VALUE}&#x200A;<span style='{INLINE_BLOCK}'>0</span>",
        f"{VALUE}<sup style='font-size: 4pt'>'</sup>0",
        # piled_text.py piles inked glyphs alone: the digit's spaces are no place to pile on
        f"{VALUE}<span style='position: relative'>0&nbsp;&nbsp;&nbsp;&nbsp;<span style='position: "
        "absolute; left: 0.7em; top: 0'>&nbsp;&nbsp;&nbsp;&nbsp;&#x200B;</span></span>",
        # under MIN_SHOWN_CONTRAST (1.47 here), so it shows no value, but seen (MIN_SEEN_CONTRAST)
        f"{VALUE}<span style='color: #d5d5d5'>0</span>",
    ],
    ids=[
        "a letter of no size between",
        "a digit mirrored, drawn as itself",
        "a letter-spaced digit",
        "the value and a digit letter-spaced alike",
        "an image's alt text",
        "a right-to-left box after",
        "a right-to-left box before",
        "an inline-block raised a little",
        "a digit placed at a fractional offset",
        "two inline-blocks, one pulled back",
        "a zero-width space in the digit's box",
        "a larger digit in an inline-block",
        "columns with no gap",
        "a list marker outside",
        "a list marker inside",
        "a space under an inline-block pulled back over it",
        "a no-break space of a box pulled back under the value",
        "a no-break space of a box the value is pulled over",
        "a right-to-left box's no-break space pulled under the value",
        "a space of its own under an inline-block pulled back over it",
        "a hair space before an inline-block",
        "a speck raised between the value and a digit",
        "a digit's spaces piled on by a text of no glyphs",
        "a pale grey digit, too pale to count as shown",
    ],
)
def test_a_digit_drawn_against_the_value_is_refused(written):
    assert _refuses_the_value(written)


@pytest.mark.parametrize(
    "written",
    [
        f"{VALUE}&#x200A;0",
        f"{VALUE}<span>&#x200A;</span>0",
        f"{VALUE}<span style='{INLINE_BLOCK}; transform: rotate(180deg)'>0</span>",
        f"{VALUE}<span style='{INLINE_BLOCK}; transform: scale(1, -1)'>8</span>",
    ],
    ids=[
        "a hair space",
        "a hair space in a box of its own",
        "a digit turned upside down, drawn as itself",
        "a digit flipped, drawn as itself",
    ],
)
def test_a_digit_drawn_against_the_value_past_a_hair_space_or_turned_over_is_refused(written):
    assert _refuses_the_value(written)


@pytest.mark.parametrize(
    "written",
    [
        f"{VALUE}<span style='{INLINE_BLOCK}; vertical-align: super; font-size: 70%'>1</span>",
        f"{VALUE}<span style='{INLINE_BLOCK}; margin-left: 1mm; background: #eee'>EU</span>",
        f"<span style='{INLINE_BLOCK}; width: 25mm'>VAT ID</span>{VALUE}",
        f"<span style='letter-spacing: -0.05em'>VAT ID {VALUE}</span>",
        f"<span style='word-spacing: -0.1em'>VAT ID {VALUE}</span>",
        f"{VALUE} (<span style='{INLINE_BLOCK}'>EU</span>)",
        f"{VALUE}&#x2009;/&#x2009;EU",
        f"{VALUE}&#x2007;1",
        f"<span style='font-family: serif; letter-spacing: 0.02em'>VAT ID&nbsp;{VALUE}</span>",
        f"{VALUE} <span style='{INLINE_BLOCK}; margin-left: -0.1em'>EU</span>",
        f"<span style='{INLINE_BLOCK}; width: 25mm'>VAT ID</span>{VALUE}<sup>1</sup>",
        f"{VALUE}<sub>1</sub>",
    ],
    ids=[
        "a footnote mark raised in an inline-block",
        "a badge with a margin",
        "a label in a fixed width",
        "a tight letter-spacing",
        "a tight word-spacing",
        "a badge in brackets",
        "thin spaces around a slash",
        "a figure space before a digit",
        "a serif font, slightly tracked",
        "a space narrowed by a badge pulled back a little",
        "a footnote mark after a label in a fixed width",
        "a subscript mark",
    ],
)
def test_an_ordinary_design_beside_the_value_is_accepted(written):
    assert _refusal(written) == ""


def test_a_footnote_mark_in_superscript_after_the_value_is_accepted():
    # a real design: "DE123456789¹", the footnote below saying where the number is registered
    assert _refusal(f"{VALUE}<sup>1</sup>") == ""
