"""A text in a box of its own (an inline-block, a float, a table cell, a positioned box) drawn
against a value on its line: what the page shows is one word of both (1 before 59.70 draws
159.70), so the reading of the page text (notifications/documents/page_text.py,
drawn_lines.py) must put them together in the order drawn, where the check of the legal
elements finds the value run in. And the designs that set such a box apart from a value (a
badge with a margin, a floated logo), which must still read it apart. Each HTML is laid out by
WeasyPrint in this process."""

import re

import pytest

from notifications.documents.layout import pdf_layout

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
