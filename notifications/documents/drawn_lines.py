"""Texts a page draws as one word that page_text.py reads apart, put back together in the order
drawn. page_text.py reads a box of its own (an inline-block, a float, a table cell, a positioned
box) as a block of its own, and a line's texts in the order of its boxes; so 1 in an
inline-block, or floated, against 59,70 € reads apart from the value while the page shows
159,70 €. Plain geometry on the glyph bands page_text.py measures, so that the child process
that lays out (layout.py) needs nothing more.

Two shown texts touch when they lie on one line of the page (both run along the page's lines,
within MAX_TILT_DEGREES, and their baselines meet where the texts meet, less than
LINE_BASELINE_SHARE of the smaller capital's height apart) and the one further along starts less
than SPACED_EM of the larger font after the other ends, or over it. Where two touching texts are
not read one right after the other (spaces aside) in their line's direction, their lines, and
every line touching those, make a row, read in the order drawn: left to right (right to left in
a right-to-left line), texts less than SPACED_EM apart run together, farther ones set apart by a
space, or by UNSHOWN where a text not shown lies between. Each line of the row reads the whole
row, so that each block it is in reads on through it (a value broken across the lines of a
floated box, as across any other). Not seen: where a tilted text's bounds overstate its glyphs,
and a space drawn narrower than its font's (a space read is a space, however it is drawn)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from math import hypot, radians, tan

from notifications.documents.piled_text import GlyphBand, Point

# A NUL where a text is not shown, and between blocks (page_text.py): no value holds one, so no
# value is found across it.
UNSHOWN = "\0"
# Texts on a line this far apart, in their font's size, are set apart as by a space (about a
# quarter of an em: a label and its value in spans with a margin between): read as one.
SPACED_EM = 0.25
# A text turned further than this from the page's lines runs across them more than along them,
# and continues no word of theirs; one turned less (an italic's slant is 12 degrees) may.
MAX_TILT_DEGREES = 45
# Texts whose baselines are half a capital apart sit on one line (a superscript is raised a
# third of an em, about half a capital: a line of its own, such as a footnote's mark); the next
# line's baseline is a line-height away, past a capital's height in any layout meant to be read.
LINE_BASELINE_SHARE = 0.5


@dataclass(eq=False)
class Line:
    """A line box as page_text.py reads it: its text starts at `parts[start]` (a line feed)."""

    parts: list[str]
    start: int
    rtl: bool


@dataclass(frozen=True, eq=False)
class Placed:
    """A text of a line, or an inline box not shown, where page_text.py read it (`index` in its
    line's parts) and where the page draws it: `left` and `right` across the page, and `band`,
    its glyphs' band (None: not shown, or only spaces)."""

    line: Line
    index: int
    left: float
    right: float
    band: GlyphBand | None


def read_as_drawn(texts: list[Placed]) -> None:
    """Give each line of a row of a page's `texts` (their lines' parts rewritten in place) the
    row's text in the order drawn, where the reading order of its boxes is not."""
    rows: dict[Line, Line] = {}  # each line's representative, in a union-find

    def row_of(line: Line) -> Line:
        while rows.get(line, line) is not line:
            line = rows[line]
        return line

    misread: set[Line] = set()
    for left, right in _touching_pairs([text for text in texts if _shown(text)]):
        if left.line is right.line and _read_in_turn(left, right):
            continue
        first, second = row_of(left.line), row_of(right.line)
        rows[second] = first
        misread.add(first)
    rows_texts: dict[Line, list[Placed]] = {}
    ends: dict[Line, int] = {}  # past each line's last part
    for text in texts:
        rows_texts.setdefault(row_of(text.line), []).append(text)
        ends[text.line] = max(ends.get(text.line, 0), text.index + 1)
    for line in {row_of(line) for line in misread}:
        row = rows_texts[line]
        reading = _row_text(row, line.rtl)
        for member in {placed.line for placed in row}:
            start, end = member.start, ends[member]
            member.parts[start:end] = ["\n" + reading] + [""] * (end - start - 1)  # the indexes kept


def _shown(text: Placed) -> bool:
    return text.band is not None and text.line.parts[text.index] != UNSHOWN  # not piled


def _touching_pairs(texts: list[Placed]) -> list[tuple[Placed, Placed]]:
    """The touching texts, each pair left one first. Only texts whose bands' bounds meet down
    the page (or nearly: a text upside down hangs from its baseline) are compared, found by a
    sweep down it, as piled_text.py does."""
    order = sorted(texts, key=lambda text: _glyphs(text).on_page[1])
    pairs = []
    for position, first in enumerate(order):
        _, top, _, bottom = _glyphs(first).on_page
        for second in islice(order, position + 1, None):
            if _glyphs(second).on_page[1] > 2 * bottom - top:
                break  # this text and every one after it start a band's height below the first's
            left, right = sorted((first, second), key=lambda text: (text.left, text.right))
            if _upright(left) and _upright(right) and _touch(left, right):
                pairs.append((left, right))
    return pairs


def _touch(left: Placed, right: Placed) -> bool:
    """Whether two upright texts (`left` starting first) lie on one line and touch."""
    near, far = _glyphs(left), _glyphs(right)
    drop = _baseline_ends(near)[1][1] - _baseline_ends(far)[0][1]  # where they meet
    on_one_line = abs(drop) < LINE_BASELINE_SHARE * min(_cap_height(near), _cap_height(far))
    return on_one_line and right.right > left.right and right.left - left.right < _spaced(near, far)


def _glyphs(text: Placed) -> GlyphBand:
    assert text.band is not None  # a shown text's
    return text.band


def _across(band: GlyphBand) -> float:
    """How much its transformation scales a length across the text's line (1: none)."""
    if not band.matrix:
        return 1.0
    a, b, c, d, _, _ = band.matrix.values
    along = hypot(a, b)  # the length of the line's unit on the page
    return abs(a * d - b * c) / along if along else 0.0


def _cap_height(band: GlyphBand) -> float:
    return (band.rect[3] - band.rect[1]) * _across(band)


def _spaced(first: GlyphBand, second: GlyphBand) -> float:
    """SPACED_EM of the larger font of two texts, as drawn on the page."""
    return SPACED_EM * max(first.em * _across(first), second.em * _across(second))


def _baseline_ends(band: GlyphBand) -> tuple[Point, Point]:
    """The ends of the line the text stands on as the page draws it, the left one first: its
    baseline, or where a transform turns it upside down (rotate(180deg), scale(1, -1)) the top
    of its capitals, then lowest on the page: a 0 or an 8 turned over is drawn as itself,
    standing where the line's own digits stand."""
    x1, top, x2, baseline = band.rect
    edges = [[(x1, y), (x2, y)] for y in (baseline, top)]
    if band.matrix:
        edges = [[band.matrix.transform_point(*end) for end in ends] for ends in edges]
    lowest = max(edges, key=lambda ends: ends[0][1] + ends[1][1])  # y runs down the page
    left, right = sorted(lowest)
    return left, right


def _upright(text: Placed) -> bool:
    """Whether the text runs along the page's lines, within MAX_TILT_DEGREES."""
    matrix = _glyphs(text).matrix
    if not matrix:
        return True
    a, b, *_ = matrix.values  # the direction of the text's line on the page
    return abs(b) <= tan(radians(MAX_TILT_DEGREES)) * abs(a)


def _read_in_turn(left: Placed, right: Placed) -> bool:
    """Whether the reading of their line puts one right after the other in its direction, with
    nothing but spaces between."""
    first, second = (right, left) if left.line.rtl else (left, right)
    between = first.line.parts[first.index + 1 : second.index]
    return first.index < second.index and all(part.isspace() or not part for part in between)


def _row_text(texts: list[Placed], rtl: bool) -> str:
    """The row's texts in the order drawn, run together or set apart by their gaps."""
    pieces: list[str] = []
    last: Placed | None = None  # the last shown text, and how far right shown texts reach
    reach, space, hidden = 0.0, False, False
    for placed in sorted(texts, key=lambda text: (text.left, text.right)):
        part = placed.line.parts[placed.index]
        if part.isspace() or not part:
            space = space or bool(part)
        elif not _shown(placed):
            hidden = True
        else:
            if last is None:
                pieces.append(UNSHOWN if hidden else "")
            else:
                apart = placed.left - reach >= _spaced(_glyphs(last), _glyphs(placed))
                pieces.append(UNSHOWN if apart and hidden else " " if apart or space else "")
            pieces.append(part)
            last, reach, space, hidden = placed, max(reach, placed.right), False, False
    pieces.append(UNSHOWN if hidden else "")
    return "".join(reversed(pieces) if rtl else pieces)
