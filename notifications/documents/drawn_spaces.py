"""Which spaces of a line's texts the page draws as a gap, which page_text.py reads as a space:
a space sets the glyphs either side apart only where the page leaves at least SPACE_DRAWN_SHARE
of the space's own width between them, and MIN_SPACE_GAP_EM of their font (a hair space draws
no gap a reader sees). A negative word-spacing or letter-spacing takes a space's width back
(`<span style='word-spacing: -0.3em'>1 </span>19 %` draws 119 % while its texts still hold "1 "
and "19 %"), and a box pulled back over a space (a negative margin, a relative offset) draws
onto it: the text holds a space the page does not show. So a space is
read from where the glyphs lie: from the end of the glyph before it (its advance as the font
sets it, from where the page draws it) to the start of the glyph after it, in one text box or
across two on a line.

Measured on the glyphs Pango sets for a text box, the way WeasyPrint sets them to draw it
(draw/text.py: the box's style, its text and its justification spacing): WeasyPrint documents
no way to a box's glyphs, so this uses its text.line_break.Layout and the Pango functions its
text.ffi declares, public names of weasyprint (pinned in requirements.in); the tests of
page_text.py fail on a release that changes them."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from notifications.documents.glyph_lines import SPACED_EM, on_one_line
from notifications.documents.piled_text import GlyphBand

# A space taken back to less than half its width no longer sets words apart: 1 19 with a space
# of a tenth of an em reads as 119, the digits' own side bearings as wide. Justified text only
# widens spaces, and the tightest typesetting (TeX's shrink) leaves two thirds of one.
SPACE_DRAWN_SHARE = 0.5
# And however narrow the space itself, glyphs it sets less than this share of an em apart (of
# the larger font either side) read as one word: a hair space, a sixteenth to a tenth of an em,
# leaves digits no further apart than their side bearings vary (DE123&#x200A;0 draws DE1230).
# A word space is a quarter to a third of an em; a thin space, a fifth.
MIN_SPACE_GAP_EM = 0.15

Cell = tuple[int, float, float]  # a glyph's character, where its advance starts and ends


@dataclass(frozen=True)
class DrawnText:
    """A text box's text as read: without the spaces at its ends, which the gaps the line
    leaves there decide (LineGaps), and without the spaces inside it the page takes back.
    `ink` spans its glyphs but spaces, from the left of the box (None: it draws spaces alone);
    `lead` and `trail` are the widths of the widest spaces at its start and end (0: none), and
    `sides` those of the widest drawn left and right of its ink, as the page draws them
    (drawn_lines.py reads a text beside another box's by where they lie)."""

    text: str
    ink: tuple[float, float] | None
    lead: float = 0.0
    trail: float = 0.0
    sides: tuple[float, float] = (0.0, 0.0)


def is_space(char: str) -> bool:
    """A character drawn as a blank advance: a space of any width (Zs) or a tab. A line or
    paragraph separator is not (bidi_overrides.py reads where it ends an override)."""
    return char == "\t" or unicodedata.category(char) == "Zs"


def _is_drawn(char: str) -> bool:
    """A glyph with ink: neither a space nor an invisible formatting character (Cf)."""
    return not is_space(char) and unicodedata.category(char) != "Cf"


def box_text(box: Any, text: str) -> DrawnText:
    """`text` for a box whose glyphs are not measured: its ink spans the box."""
    return DrawnText(text, (0.0, box.width))


def drawn_text(box: Any) -> DrawnText:
    """The text of a WeasyPrint TextBox as the page shows its words, its spaces read from its
    glyphs (_glyph_cells) left to right: a run of spaces between two glyphs is kept where they
    lie at least SPACE_DRAWN_SHARE of its widest space apart, else left out."""
    text = box.text
    if not any(is_space(char) for char in text) and box.style["letter_spacing"] == "normal":
        return box_text(box, text)  # nothing to measure: its glyphs span its box, as laid out
    widths = [0.0] * len(text)
    taken_back: set[int] = set()
    ink: tuple[float, float] | None = None
    spaces: list[int] = []
    left = 0.0  # the widest space drawn left of its first glyph
    for index, start, end in _glyph_cells(box):
        if is_space(text[index]):
            spaces.append(index)
            widths[index] = max(widths[index], end - start)
        elif _is_drawn(text[index]):
            widest = max((widths[i] for i in spaces), default=0.0)
            if ink and spaces and start - ink[1] < least_gap(widest, box.style["font_size"]):
                taken_back.update(spaces)
            left = left if ink else widest
            ink = (min(ink[0], start), max(ink[1], end)) if ink else (start, end)
            spaces = []
    right = max((widths[i] for i in spaces), default=0.0)
    non_spaces = [index for index, char in enumerate(text) if not is_space(char)]
    lead, trail = (non_spaces[0], non_spaces[-1] + 1) if non_spaces else (len(text), 0)
    # The spaces at its ends stay as written: the texts beside it decide them (LineGaps).
    inner = "".join(text[index] for index in range(lead, trail) if index not in taken_back)
    kept = text[:lead] + inner + text[trail:] if non_spaces else text
    ends = max(widths[:lead], default=0.0), max(widths[trail:], default=0.0)
    return DrawnText(kept, ink, *ends, (left if ink else right, right))


def _glyph_cells(box: Any) -> list[Cell]:
    """The box's glyphs left to right, as Pango sets them to draw it: for each, the index of its
    character in the text (a cluster's first) and the advance its font gives it, from where
    the glyph is drawn (the pen's position and the glyph's offset), relative to the box."""
    from weasyprint.text.ffi import FROM_UNITS, ffi, pango
    from weasyprint.text.line_break import Layout

    offsets: dict[int, int] = {}  # each character's index by its offset in UTF-8, as Pango counts
    offset = 0
    for index, char in enumerate(box.text):
        offsets[offset] = index
        offset += len(char.encode())
    layout = Layout(box.style, box.justification_spacing)
    layout.set_text(box.text, justify=True)
    line, _ = layout.get_first_line()
    logical = ffi.new("PangoRectangle *")
    cells: list[Cell] = []
    pen, run = 0.0, line.runs
    while run != ffi.NULL:
        item, glyphs = run.data.item, run.data.glyphs
        for glyph in range(glyphs.num_glyphs):
            info = glyphs.glyphs[glyph]
            char = offsets.get(item.offset + glyphs.log_clusters[glyph])
            pango.pango_font_get_glyph_extents(item.analysis.font, info.glyph, ffi.NULL, logical)
            start = pen + info.geometry.x_offset * FROM_UNITS
            if char is not None:
                cells.append((char, start, start + logical.width * FROM_UNITS))
            pen += info.geometry.width * FROM_UNITS
        run = run.next
    return cells


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


class LineGaps:
    """Each block's current line, read text by text in the line's order: whether the page sets
    a text apart from the one before it as a space does."""

    def __init__(self) -> None:
        self._lines: dict[int, _Line] = {}

    def start_line(self, block: int, *, rtl: bool) -> None:
        self._lines[block] = _Line(rtl)

    def spaced(self, parts: list[str], box: Any, drawn: DrawnText, band: GlyphBand | None) -> tuple[str, str]:
        """What to read between the line's last text and this one, and this one's text, where
        they go next in its block's `parts`. Where a space lies between them (at the end of
        either, or a text of spaces alone) it stays as written if it leaves SPACE_DRAWN_SHARE of
        its width between their glyphs, else it is taken out of both texts (a space taken back,
        a negative margin over it). Where none does, a space if their boxes lie SPACED_EM of its
        font apart (a margin or padding between spans: the boxes, not the glyphs, so that a
        letter-spacing spreading a number's digits sets none apart). The first text of a line
        keeps its spaces: nothing before it in its block tells them (drawn_lines.py reads the
        texts of other blocks beside it). A text shown off the line of the one before (raised
        or lowered: a footnote's mark in superscript, glyph_lines.py) is read apart from it."""
        line = self._lines.setdefault(id(parts), _Line(rtl=False))
        space, at = max(line.space, drawn.lead), len(parts) + 1  # after its separator
        if drawn.ink is None:  # spaces alone: their advance is in the gap the next text finds
            line.space = max(space, drawn.trail)
            line.spaces_at.append(at)
            return "", drawn.text
        sign = -1 if line.rtl else 1
        edges = sorted(sign * x for x in (box.position_x, box.position_x + box.width))
        ink = sorted(sign * (box.position_x + x) for x in drawn.ink)
        last_edge, last_ink, last_em, ending = line.edge, line.ink, line.em, line.spaces_at
        last_band, line.band = line.band, band
        line.edge, line.ink, line.space, line.em = edges[1], ink[1], drawn.trail, box.style["font_size"]
        line.spaces_at = [at] if drawn.trail else []
        if last_edge is None:
            return "", drawn.text
        if last_band and band and not on_one_line(last_band, band):
            return " ", drawn.text
        if not space:
            return (" " if edges[0] - last_edge >= SPACED_EM * box.style["font_size"] else ""), drawn.text
        if ink[0] - last_ink >= least_gap(space, max(last_em, line.em)):
            return "", drawn.text
        for index in ending:
            parts[index] = spaces_cut(parts[index], from_end=True)
        return "", spaces_cut(drawn.text, from_end=False)


def least_gap(space: float, em: float) -> float:
    """The gap a space of width `space` must leave between glyphs of a font of `em` to be read."""
    return max(SPACE_DRAWN_SHARE * space, MIN_SPACE_GAP_EM * em)


def spaces_cut(text: str, *, from_end: bool) -> str:
    """`text` without the spaces at its end (or start), and among the invisible formatting
    characters there (a zero-width space WeasyPrint adds keeps its place)."""
    chars = list(reversed(text)) if from_end else list(text)
    edge = 0
    while edge < len(chars) and not _is_drawn(chars[edge]):
        edge += 1
    chars[:edge] = [char for char in chars[:edge] if not is_space(char)]
    return "".join(reversed(chars) if from_end else chars)
