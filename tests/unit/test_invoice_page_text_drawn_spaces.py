"""A space the text holds but the page does not draw as a gap (notifications/documents/
drawn_spaces.py): a negative word-spacing or letter-spacing that takes its width back, or a box
pulled back over it, draws 119 % where the text reads "1 19 %", and the check of the legal
elements would count the rate 19 % as apart. The page text must read no space there, and still
read one wherever a design leaves a gap. Each HTML is laid out by WeasyPrint in this process."""

import pytest

from notifications.documents.layout import pdf_layout

HEBREW = "\u05d3\u05d5\u05d3 \u05db\u05d4\u05df"  # a customer's name, written right to left


def _shown(html: str) -> str:
    return pdf_layout(html).shown_text


@pytest.mark.parametrize(
    "html",
    [
        "<p><span style='word-spacing: -0.3em'>1 </span>19 %</p>",
        "<p><span style='word-spacing: -0.2em'>1 </span>19 %</p>",
        "<p style='word-spacing: -0.3em'>1 19 %</p>",
        "<p>1<span style='word-spacing: -0.3em'> 19 %</span></p>",
        "<p>1<span style='word-spacing: -0.3em'> </span>19 %</p>",
        "<p><span style='letter-spacing: -0.3em'>1 </span>19 %</p>",
        "<p style='white-space: pre; word-spacing: -0.3em'>1 19 %</p>",
        "<p><span>1 </span><span style='margin-left: -0.3em'>19 %</span></p>",
        "<p>1 <span style='position: relative; left: -0.3em'>19 %</span></p>",
    ],
    ids=[
        "a box ending in the space",
        "a space left a third of its width",
        "a space inside one box",
        "a box starting with the space",
        "the space alone in its box",
        "letter-spacing at a box's end",
        "a preserved space",
        "a negative margin over it",
        "a relative offset over it",
    ],
)
def test_a_space_the_page_takes_back_is_not_read(html):
    shown = _shown(html)
    assert "119" in shown.replace("\u200b", ""), repr(shown)


@pytest.mark.parametrize(
    "html",
    [
        "<p style='letter-spacing: 0.3em'>1<span>19 %</span></p>",
        "<p style='letter-spacing: 0.3em'><span>1</span><span>19 %</span></p>",
    ],
    ids=["a text after it", "two spans"],
)
def test_a_letter_spacing_spreading_digits_sets_none_apart(html):
    # its gap after a text's last letter spreads the number, as between any two of its digits
    shown = _shown(html)
    assert "119" in shown, repr(shown)


@pytest.mark.parametrize(
    "html",
    [
        "<p>Rate 1 19 %</p>",
        "<p><span>1 </span>19 %</p>",
        "<p>1<span> 19 %</span></p>",
        "<p><b>1</b> <i>19 %</i></p>",
        "<p style='word-spacing: -0.1em'>1 19 %</p>",
        "<p><span style='word-spacing: -2px'>1 </span>19 %</p>",
        "<p style='text-align: justify; width: 30mm'>1 19 % and more words after it</p>",
        "<p style='font-family: serif'><span>1 </span>19 %</p>",
        "<p style='font-family: monospace'>1 <span>19 %</span></p>",
        "<p style='font-size: 6pt'><span>1 </span><span>19 %</span></p>",
        "<p><span style='letter-spacing: 0.2em'>1 </span>19 %</p>",
        "<p>1&nbsp;19 %</p>",
        "<p style='white-space: pre'>1   <span>19 %</span></p>",
        "<p style='transform: scale(0.8)'><span>1 </span>19 %</p>",
    ],
    ids=[
        "one text",
        "a box ending in the space",
        "a box starting with it",
        "a space alone between boxes",
        "a word-spacing that tightens",
        "a word-spacing of -2px",
        "justified",
        "a serif font",
        "a monospace font",
        "fine print",
        "letter-spaced",
        "a no-break space",
        "preserved spaces",
        "scaled",
    ],
)
def test_a_space_the_page_draws_is_read(html):
    shown = _shown(html)
    assert "1 19" in shown.replace("\u00a0", " ").replace("  ", " ").replace("  ", " "), repr(shown)


@pytest.mark.parametrize(
    "html",
    [
        f"<p style='direction: rtl'>{HEBREW} <span>19 %</span></p>",
        f"<p style='direction: rtl'><span>{HEBREW} </span>19 %</p>",
        f"<p style='direction: rtl'>{HEBREW}<span> 19 %</span></p>",
    ],
    ids=["a space inside the text", "a box ending in the space", "a box starting with it"],
)
def test_a_space_on_a_right_to_left_line_is_read(html):
    shown = _shown(html)
    assert f"{HEBREW.split()[-1]} 19" in shown, repr(shown)
