"""Which gaps between the texts of a line the page draws as a space, which page_text.py reads as
one: the line's texts in its order, each against the one before it, as drawn_spaces.py reads
the spaces inside one text. Where a space lies between them (at the end of either, or a text
of spaces alone), by the gap it leaves between their glyphs, so that a space a negative margin
or a relative offset draws a box over sets nothing apart; where none does, by their boxes,
SPACED_EM apart (a margin or padding between spans), so that a letter-spacing spreading a
number's digits sets none apart. Between two digits, a gap is read as grouping them or not
(digit_groups.py). Plain geometry on what drawn_spaces.py measured."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from notifications.documents.digit_groups import digit_gap, digits_meet, group_gap
from notifications.documents.drawn_spaces import DrawnText, least_gap, spaces_cut
from notifications.documents.glyph_bands import GlyphBand
from notifications.documents.glyph_lines import SPACED_EM, on_one_line


@dataclass
class _Line:
    """Where a line's last text ends along it (its box: None before its first text, and its
    glyphs), the widest space read since (that text's last, or a text of spaces alone), and
    whether the line runs right to left, from its right edge."""

    rtl: bool
    edge: float | None = None
    ink: float = 0.0
    em: float = 0.0  # the last text's font size
    band: GlyphBand | None = None  # the last text's glyphs (None: not shown)
    space: float = 0.0
    spaces_at: list[int] = field(default_factory=list)  # the parts ending in those spaces
    text: str = ""  # the last text, as read
    style: Any = None  # the last text's style


@dataclass(frozen=True)
class _Gap:
    """Between a line's last text and the next: whether a space lies there (its width, 0:
    none), how far apart their boxes and their glyphs lie, and whether each side's digit
    meets the other's."""

    space: float
    boxes: float
    glyphs: float
    digits: bool


class LineGaps:
    """Each block's current line, read text by text in the line's order: whether the page sets
    a text apart from the one before it as a space does."""

    def __init__(self) -> None:
        self._lines: dict[int, _Line] = {}

    def start_line(self, block: int, *, rtl: bool) -> None:
        self._lines[block] = _Line(rtl)

    def spaced(self, parts: list[str], box: Any, drawn: DrawnText, band: GlyphBand | None) -> tuple[str, str]:
        """What to read between the line's last text and this one, and this one's text, where
        they go next in its block's `parts` (the module's rule). A space left as read keeps the
        characters written, but between two digits, where one GROUPING or one space is read.
        The first text of a line keeps its spaces: nothing before it in its block tells them
        (drawn_lines.py reads the texts of other blocks beside it). A text shown off the line of
        the one before (raised or lowered: a footnote's mark in superscript, glyph_lines.py) is
        read apart from it."""
        line = self._lines.setdefault(id(parts), _Line(rtl=False))
        space, at = max(line.space, drawn.lead), len(parts) + 1  # after its separator
        if drawn.ink is None:  # spaces alone: their advance is in the gap the next text finds
            line.space = max(space, drawn.trail)
            line.spaces_at.append(at)
            return "", drawn.text
        sign = -1 if line.rtl else 1
        edges = sorted(sign * x for x in (box.position_x, box.position_x + box.width))
        ink = sorted(sign * (box.position_x + x) for x in drawn.ink)
        last = replace(line, space=space)  # the line as the last text left it
        line.edge, line.ink, line.space, line.em = edges[1], ink[1], drawn.trail, box.style["font_size"]
        line.band, line.text, line.style = band, drawn.text, box.style
        line.spaces_at = [at] if drawn.trail else []
        if last.edge is None:
            return "", drawn.text
        if last.band and band and not on_one_line(last.band, band):
            return " ", drawn.text
        gap = _Gap(space, edges[0] - last.edge, ink[0] - last.ink, digits_meet(last.text, drawn.text))
        separator, cut = _read(gap, last, box.style)
        if cut:
            for index in last.spaces_at:
                parts[index] = spaces_cut(parts[index], from_end=True)
            return separator, spaces_cut(drawn.text, from_end=False)
        return separator, drawn.text


def _read(gap: _Gap, last: _Line, style: Any) -> tuple[str, bool]:
    """What the gap after `last` reads as, the next text in `style`, and whether the spaces
    either side are cut: a space not drawn is left out; between two digits one GROUPING or one
    space stands for the gap; otherwise a space drawn stays as written."""
    em = style["font_size"]
    if gap.space:
        if gap.glyphs < least_gap(gap.space, max(last.em, em)):
            return "", True
        if not gap.digits:
            return "", False
    elif gap.boxes < SPACED_EM * em:
        return "", False
    elif not gap.digits:
        return " ", False
    return digit_gap(gap.glyphs, max(group_gap(last.style), group_gap(style))), True
