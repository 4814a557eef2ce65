"""A text in a box of its own (an inline-block, a float, a table cell, a positioned box) drawn
against a value on its line: what the page shows is one word of both (1 before 59.70 draws
159.70), so the reading of the page text (notifications/documents/page_text.py,
drawn_lines.py) must put them together in the order drawn, where the check of the legal
elements finds the value run in. And the designs that set such a box apart from a value (a
badge with a margin, a floated logo), which must still read it apart. Each HTML is laid out by
WeasyPrint in this process; the rule itself on texts placed by hand."""

import re
from dataclasses import replace

import pytest

from notifications.documents.drawn_lines import UNSHOWN, Line, Placed, read_as_drawn
from notifications.documents.layout import pdf_layout
from notifications.documents.piled_text import GlyphBand

VALUE = "DE999888777"


def _neighbours(html: str) -> set[tuple[str, str]]:
    """The characters the reading shows before and after each place it reads the value."""
    shown = pdf_layout(html).shown_text
    found = {
        (shown[match.start() - 1 : match.start()], shown[match.end() : match.end() + 1])
        for match in re.finditer(VALUE, shown)
    }
    assert found, repr(shown)
    return found


@pytest.mark.parametrize(
    ("html", "before", "after"),
    [
        (f"<p><span style='display: inline-block'>1</span>{VALUE}</p>", "1", None),
        (f"<p>{VALUE}<span style='display: inline-block'>0</span></p>", None, "0"),
        (f"<p><span style='float: left'>1</span>{VALUE}</p>", "1", None),
        (f"<p>{VALUE}<span style='float: left'>1</span></p>", "1", None),
        (f"<p style='text-align: right'><span style='float: right'>1</span>{VALUE}</p>", None, "1"),
        (
            "<table style='border-spacing: 0'><tr><td style='padding: 0; text-align: right'>1</td>"
            f"<td style='padding: 0'>{VALUE}</td></tr></table>",
            "1",
            None,
        ),
        (
            "<p style='margin-left: 20mm'><span style='position: relative'>"
            f"<span style='position: absolute; right: 100%'>1</span>{VALUE}</span></p>",
            "1",
            None,
        ),
    ],
    ids=[
        "an inline-block digit before",
        "an inline-block digit after",
        "a floated digit before",
        "a floated digit written after, drawn before",
        "a digit floated right, against a right-aligned value",
        "a digit in the table cell before, no padding",
        "a digit positioned against it",
    ],
)
def test_a_digit_in_a_box_of_its_own_drawn_against_a_value_is_read_run_in(html, before, after):
    for shown_before, shown_after in _neighbours(html):
        assert before is None or shown_before == before, (shown_before, shown_after)
        assert after is None or shown_after == after, (shown_before, shown_after)


@pytest.mark.parametrize(
    "html",
    [
        f"<p><span style='display: inline-block; padding: 0 1mm; background: #eee'>VAT</span> {VALUE}</p>",
        f"<p><span style='display: inline-block; margin-right: 2mm'>VAT</span>{VALUE}</p>",
        f"<p>VAT: <span style='display: inline-block; border: 1px solid; padding: 0 1mm'>{VALUE}</span></p>",
        f"<p>{VALUE} <span style='display: inline-block; background: #eee'>paid</span></p>",
        "<table><tr><td><span style='float: left; margin-right: 3mm; font-size: 20pt'>ACME</span>"
        f"{VALUE}</td><td>19.99</td></tr></table>",
        f"<p><span style='float: right'>ACME</span>VAT number {VALUE}</p>",
        f"<p style='text-align: right'><span style='float: left'>1</span>{VALUE}</p>",
        "<table style='border-collapse: collapse'><tr><td style='padding: 1mm'>1</td>"
        f"<td style='padding: 1mm'>{VALUE}</td></tr></table>",
    ],
    ids=[
        "a badge, then a space",
        "a badge with a margin",
        "in a badge of its own",
        "a badge after it",
        "a floated logo in its table cell",
        "a logo floated to the line's end",
        "a digit floated to the other end",
        "table cells with padding",
    ],
)
def test_a_box_of_its_own_set_apart_from_a_value_leaves_it_apart(html):
    for before, after in _neighbours(html):
        assert not before.isalnum(), (before, after)
        assert not after.isalnum(), (before, after)


def test_a_value_broken_across_lines_beside_a_floated_logo_is_read_whole():
    # given: an address that wraps in a narrow cell, a floated logo touching its first line
    address = "Musterstraße 123, 10115 Berlin-Charlottenburg"
    html = (
        f"<table style='width: 40mm'><tr><td><span style='float: left'>ACME</span>{address}</td></tr></table>"
    )
    # when
    shown = pdf_layout(html).shown_text
    # then: read whole, the line breaks taken out as the check takes them out
    assert "".join(address.split()) in "".join(shown.split()), repr(shown)


def _text(line: Line, text: str, x: float, width: float, *, shown: bool = True, y: float = 0.0) -> Placed:
    """`text` read at the end of `line`, drawn from `x` in a 10 px font (a band 7 px tall,
    its baseline at `y` + 7), or not shown."""
    rect = (x, y, x + width, y + 7.0)
    line.parts.append(text if shown else UNSHOWN)
    band = GlyphBand(rect, None, rect, 10.0) if shown and not text.isspace() else None
    return Placed(line, len(line.parts) - 1, x, x + width, band)


def test_texts_of_two_lines_drawn_touching_are_read_as_one_row_in_each_line():
    # given: a value's line, and a digit's line of its own (an inline-block) drawn before it
    value_line, digit_line = Line(["\n"], 0, rtl=False), Line(["\n"], 0, rtl=False)
    texts = [_text(value_line, "59,70", 20, 30), _text(digit_line, "1", 14, 6)]
    # when
    read_as_drawn(texts)
    # then
    assert "".join(value_line.parts) == "".join(digit_line.parts) == "\n159,70"


@pytest.mark.parametrize(
    ("gap", "read"),
    [(1.0, "\n159,700"), (3.0, f"\n1{UNSHOWN}59,700")],
    ids=["touching: run together", "a quarter em apart: not read across"],
)
def test_a_text_not_shown_between_two_texts_of_a_row_parts_them_only_if_they_are_apart(gap, read):
    # given: a line of a digit, a text not shown and a value, and a digit's line of its own
    # drawn against the value's end
    line, digit_line = Line(["\n"], 0, rtl=False), Line(["\n"], 0, rtl=False)
    texts = [_text(line, "1", 0, 6), _text(line, "x", 6, gap, shown=False), _text(line, "59,70", 6 + gap, 30)]
    texts.append(_text(digit_line, "0", 36 + gap, 6))
    # when
    read_as_drawn(texts)
    # then
    assert "".join(line.parts) == read


def test_texts_on_other_lines_or_read_in_turn_are_left_as_read():
    # given: a line read in the order drawn, and a text a line below touching its end
    line, below = Line(["\n"], 0, rtl=False), Line(["\n"], 0, rtl=False)
    texts = [_text(line, "VAT ", 0, 20), _text(line, "DE999", 20, 30), _text(below, "1", 50, 6, y=12)]
    # when
    read_as_drawn(texts)
    # then
    assert "".join(line.parts) == "\nVAT DE999"
    assert "".join(below.parts) == "\n1"


def test_a_right_to_left_row_is_read_right_to_left():
    # given: a right-to-left line whose boxes the page draws left of one another, and a box of
    # its own drawn touching the leftmost
    line, other = Line(["\n"], 0, rtl=True), Line(["\n"], 0, rtl=True)
    texts = [_text(line, "ab", 30, 10), _text(line, "cd", 20, 10), _text(other, "ef", 10, 10)]
    # when
    read_as_drawn(texts)
    # then: read from the right, as the line's own boxes are
    assert "".join(line.parts) == "".join(other.parts) == "\nabcdef"


@pytest.mark.parametrize(
    ("x", "read"),
    [(31.0, "\nDE9990"), (33.0, "\nDE999 0")],
    ids=["its box pulled over the space: run together", "past the space: apart"],
)
def test_a_space_at_a_texts_end_parts_a_row_only_where_the_glyphs_lie_apart(x, read):
    # given: a value whose text ends in a space 3 px wide after its glyphs, and a digit's line
    # of its own drawn from `x`, over the space or past it
    line, digit_line = Line(["\n"], 0, rtl=False), Line(["\n"], 0, rtl=False)
    value = replace(_text(line, "DE999 ", 0, 33), ink=(0.0, 30.0), spaces=(0.0, 3.0))
    texts = [value, _text(digit_line, "0", x, 6)]
    # when
    read_as_drawn(texts)
    # then
    assert "".join(line.parts) == "".join(digit_line.parts) == read


def test_a_mark_raised_in_a_row_is_read_apart_and_the_texts_either_side_run_on():
    # given: a value, a mark raised half its capitals after it (a footnote's), and a digit's
    # line of its own drawn against the value's end just past the mark
    line, digit_line = Line(["\n"], 0, rtl=False), Line(["\n"], 0, rtl=False)
    texts = [_text(line, "DE999", 0, 30), _text(line, "1", 30, 2, y=-4.0), _text(digit_line, "0", 32, 6)]
    # when
    read_as_drawn(texts)
    # then: the mark a line of its own, the digit run into the value as drawn
    assert "".join(line.parts) == "".join(digit_line.parts) == "\nDE9990 1"
