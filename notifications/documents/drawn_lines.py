"""Texts a page draws as one word that page_text.py reads apart, put back together in the order
drawn. page_text.py reads a box of its own (an inline-block, a float, a table cell, a positioned
box) as a block of its own, and a line's texts in the order of its boxes; so 1 in an
inline-block, or floated, against 59,70 € reads apart from the value while the page shows
159,70 €. Plain geometry on the glyph bands page_text.py measures (glyph_lines.py), so that the
child process that lays out (layout.py) needs nothing more.

Two shown texts touch when they lie on one line of the page (both run along the page's lines,
within MAX_TILT_DEGREES, and their baselines meet where the texts meet, less than
LINE_BASELINE_SHARE of the smaller capital's height apart: glyph_lines.py) and the one further
along starts less than SPACED_EM of the larger font after the other ends, or over it; a text
ending with a digit and one starting with a digit touch up to a word space apart too, as a
reader groups them (digit_groups.py: 1 in a cell of its own before 159,70 €). Where two
touching texts are not read one right after the other (spaces aside) in their line's direction,
their lines, and every line touching those, make a row, read in the order drawn: left to right
(right to left in a right-to-left line), each line of the page among its texts read on its own,
a space between (a text raised or lowered off the line of those before it, a footnote's mark,
stands on a line of its own). Texts run together or are set apart as line_gaps.py reads a
line's: where a space lies between them (at the end of either, as the page draws it, or a text
of spaces alone), by the gap it leaves between their glyphs, so that a space under a box pulled
over it sets nothing apart; where none does, by their boxes, SPACED_EM apart; two digits set
apart, with GROUPING or a space as digit_groups.py reads their gap; and UNSHOWN where a text not
shown lies between. Each line of the row reads the whole row, so that each block it is in reads
on through it (a value broken across the lines of a floated box, as across any other). Not
seen: where a tilted text's bounds overstate its glyphs."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

from notifications.documents.digit_groups import digit_gap
from notifications.documents.drawn_spaces import least_gap, spaces_cut
from notifications.documents.glyph_bands import GlyphBand
from notifications.documents.glyph_lines import along_page, em_drawn, on_one_line, spaced, upright
from notifications.documents.page_areas import on_page

# A NUL where a text is not shown, and between blocks (page_text.py): no value holds one, so no
# value is found across it.
UNSHOWN = "\0"


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
    its glyphs' band (None: not shown, or only spaces). Along its band, as its `rect` runs:
    `ink`, where its glyphs but spaces start and end (None: where the band does), and `spaces`,
    the widths of the widest spaces drawn left and right of them (drawn_spaces.DrawnText's);
    whether its text starts and ends with a digit, and how far a digit of another text may lie
    from one of them and group with it (digit_groups.py)."""

    line: Line
    index: int
    left: float
    right: float
    band: GlyphBand | None
    ink: tuple[float, float] | None = None
    spaces: tuple[float, float] = (0.0, 0.0)
    digits: tuple[bool, bool] = (False, False)  # whether it starts, and ends, with a digit
    group_gap: float = 0.0  # digit_groups.group_gap of its font, across the page


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
            if upright(_glyphs(left)) and upright(_glyphs(right)) and _touch(left, right):
                pairs.append((left, right))
    return pairs


def _touch(left: Placed, right: Placed) -> bool:
    """Whether two upright texts (`left` starting first) lie on one line and touch: less than
    SPACED_EM apart, or digits a word space apart (digit_groups.py)."""
    near, far = _glyphs(left), _glyphs(right)
    gap = right.left - left.right
    grouped = _digits_meet(left, right) and gap <= max(left.group_gap, right.group_gap)
    touching = right.right > left.right and (gap < spaced(near, far) or grouped)
    return touching and on_one_line(near, far)


def _digits_meet(left: Placed, right: Placed) -> bool:
    return left.digits[1] and right.digits[0]


def _glyphs(text: Placed) -> GlyphBand:
    assert text.band is not None  # a shown text's
    return text.band


def _across_page(text: Placed) -> tuple[float, float]:
    return text.left, text.right


def _read_in_turn(left: Placed, right: Placed) -> bool:
    """Whether the reading of their line puts one right after the other in its direction, with
    nothing but spaces between."""
    first, second = (right, left) if left.line.rtl else (left, right)
    between = first.line.parts[first.index + 1 : second.index]
    return first.index < second.index and all(part.isspace() or not part for part in between)


def _row_text(texts: list[Placed], rtl: bool) -> str:
    """The row's texts in the order drawn: each line of the page among them (_levels) read on
    its own, with the row's texts not shown and of spaces alone, a space between."""
    others = [text for text in texts if not _shown(text)]
    levels = _levels([text for text in texts if _shown(text)])
    return " ".join(_level_text([*level, *others], rtl) for level in levels)


def _levels(shown: list[Placed]) -> list[list[Placed]]:
    """The row's shown texts by the line of the page they stand on, each left to right: a text
    off the line of each level's last so far (a footnote's mark raised after a value) starts
    one of its own, and the texts either side of it on their line read on without it."""
    levels: list[list[Placed]] = []
    for text in sorted(shown, key=_across_page):
        level = next((level for level in levels if on_one_line(_glyphs(level[-1]), _glyphs(text))), None)
        if level is None:
            levels.append([text])
        else:
            level.append(text)
    return levels


def _level_text(texts: list[Placed], rtl: bool) -> str:
    """The texts in the order drawn, the spaces at their ends left out, run together or set
    apart as the page draws them (_between)."""
    pieces: list[str] = []
    last: Placed | None = None  # the last shown text
    reach = (0.0, 0.0)  # how far right the shown texts reach: their boxes, their glyphs
    space, hidden = 0.0, False  # the widest space since the last shown text; a text not shown
    for placed in sorted(texts, key=_across_page):
        part = placed.line.parts[placed.index]
        if part.isspace() or not part:
            space = max(space, placed.right - placed.left if part else 0.0)
            continue
        if not _shown(placed):
            hidden = True
            continue
        word = spaces_cut(spaces_cut(part, from_end=False), from_end=True)
        left, right = _spaces_drawn(placed) if word != part else (0.0, 0.0)
        if last is None:
            pieces.append(UNSHOWN if hidden else "")
        else:
            between = _between(last, placed, reach, max(space, left))
            pieces.append(UNSHOWN if between and hidden else between)
        pieces.append(word)
        reach = (max(reach[0], placed.right), max(reach[1], _ink(placed)[1]))
        last, space, hidden = placed, right, False
    pieces.append(UNSHOWN if hidden else "")
    return "".join(reversed(pieces) if rtl else pieces)


def _between(last: Placed, placed: Placed, reach: tuple[float, float], space: float) -> str:
    """What the page draws between `placed` and the texts before it (the last `last`, and
    `reach`, how far right their boxes and glyphs reach): nothing ("") where it sets it apart
    from none of them; else a space, but one GROUPING between two digits a word space apart
    (digit_groups.py). Apart where a space `space` wide lies between, its glyphs
    drawn_spaces.least_gap after theirs; where none does, its box SPACED_EM after theirs
    (glyph_lines.spaced)."""
    near, far = _glyphs(last), _glyphs(placed)
    glyphs = _ink(placed)[0] - reach[1]
    if space:
        apart = glyphs >= least_gap(space, max(em_drawn(near), em_drawn(far)))
    else:
        apart = placed.left - reach[0] >= spaced(near, far)
    if not apart:
        return ""
    return digit_gap(glyphs, max(last.group_gap, placed.group_gap)) if _digits_meet(last, placed) else " "


def _ink(text: Placed) -> tuple[float, float]:
    """Where the text's glyphs but spaces start and end across the page."""
    if text.ink is None:
        return text.left, text.right
    band = _glyphs(text)
    _, top, _, baseline = band.rect
    left, _, right, _ = on_page(band.matrix, text.ink[0], top, text.ink[1] - text.ink[0], baseline - top)
    return left, right


def _spaces_drawn(text: Placed) -> tuple[float, float]:
    """The widths across the page of the widest spaces drawn left and right of its glyphs."""
    band = _glyphs(text)
    left, right = (along_page(band, width) for width in text.spaces)
    return (right, left) if band.matrix and band.matrix.values[0] < 0 else (left, right)
