"""Which spaces of a text box the page draws as a gap, which page_text.py reads as a space: a
space sets the glyphs either side apart only where the page leaves at least SPACE_DRAWN_SHARE
of the space's own width between them, and MIN_SPACE_GAP_EM of their font (a hair space draws
no gap a reader sees). A negative word-spacing or letter-spacing takes a space's width back
(`<span style='word-spacing: -0.3em'>1 </span>19 %` draws 119 % while its texts still hold "1 "
and "19 %"), and a box pulled back over a space (a negative margin, a relative offset) draws
onto it: the text holds a space the page does not show. So a space is read from where the
glyphs lie: from the end of the glyph before it (its advance as the font sets it, from where
the page draws it) to the start of the glyph after it, in one text box here, across two on a
line in line_gaps.py. A glyph that draws no ink (U+2800, a braille pattern blank) is read as
the space it draws; between two digits, a space is read as grouping them or not by the gap
(digit_groups.py).

Measured on the glyphs Pango sets for the box (pango_glyphs.py), which give where its inked
glyphs lie too: the runs another text may pile onto (piled_text.py)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from notifications.documents.digit_groups import digit_gap, digits_meet, group_gap
from notifications.documents.pango_glyphs import Cell, glyph_cells

# A space taken back to less than half its width no longer sets words apart: 1 19 with a space
# of a tenth of an em reads as 119, the digits' own side bearings as wide. Justified text only
# widens spaces, and the tightest typesetting (TeX's shrink) leaves two thirds of one.
SPACE_DRAWN_SHARE = 0.5
# And however narrow the space itself, glyphs it sets less than this share of an em apart (of
# the larger font either side) read as one word: a hair space, a sixteenth to a tenth of an em,
# leaves digits no further apart than their side bearings vary (DE123&#x200A;0 draws DE1230).
# A word space is a quarter to a third of an em; a thin space, a fifth.
MIN_SPACE_GAP_EM = 0.15
# The width read for a space Pango gives none (a tab at tab-size 0): still a space, which must
# leave MIN_SPACE_GAP_EM between the glyphs either side to set them apart.
_NO_WIDTH = 1e-3

Run = tuple[float, float]  # from and to along a text's line, from its box's left


@dataclass(frozen=True)
class DrawnText:
    """A text box's text as read: without the spaces inside it the page takes back, a blank
    glyph read as a space, the spaces at its ends left for the gaps the line leaves there to
    decide (line_gaps.py). `ink` spans its inked glyphs, from the left of the box (None: it
    draws no ink), `runs` those glyphs' runs between blanks; `lead` and `trail` are the widths
    of the widest spaces at its start and end (0: none), and `sides` those of the widest drawn
    left and right of its ink, as the page draws them (drawn_lines.py reads a text beside
    another box's by where they lie)."""

    text: str
    ink: tuple[float, float] | None
    lead: float = 0.0
    trail: float = 0.0
    sides: tuple[float, float] = (0.0, 0.0)
    runs: tuple[Run, ...] = ()


def is_space(char: str) -> bool:
    """A character drawn as a blank advance: a space of any width (Zs) or a tab. A line or
    paragraph separator is not (bidi_overrides.py reads where it ends an override)."""
    return char == "\t" or unicodedata.category(char) == "Zs"


def _is_drawn(char: str) -> bool:
    """A glyph with ink: neither a space nor an invisible formatting character (Cf)."""
    return not is_space(char) and unicodedata.category(char) != "Cf"


def _is_glyph(char: str) -> bool:
    """A character a font draws as a glyph of its own: neither a space, an invisible formatting
    character, a control character nor a line or paragraph separator (which end a line, and a
    bidi override: bidi_overrides.py)."""
    return _is_drawn(char) and unicodedata.category(char) not in ("Cc", "Zl", "Zp")


def box_text(box: Any, text: str) -> DrawnText:
    """`text` for a box whose glyphs are not measured: its ink spans the box."""
    return DrawnText(text, (0.0, box.width), runs=((0.0, box.width),))


def drawn_text(box: Any) -> DrawnText:
    """The text of a WeasyPrint TextBox as the page shows its words, read from its glyphs left
    to right (pango_glyphs.py): a run of blanks between two inked glyphs is kept where they lie
    at least SPACE_DRAWN_SHARE of its widest blank apart, else left out; kept between two
    digits, it is read as one GROUPING or one space (digit_groups.py)."""
    text, cells = box.text, glyph_cells(box)
    blank = _blanks(text, cells)
    read = [" " if index in blank else char for index, char in enumerate(text)]
    widths = [0.0] * len(text)
    runs: list[Run] = []
    spaces: list[int] = []  # the blanks since the last inked glyph
    left, last = 0.0, -1  # the widest blank left of its first glyph; the last inked character
    for cell in cells:
        if cell.char in blank:
            spaces.append(cell.char)
            widths[cell.char] = max(widths[cell.char], cell.end - cell.start, _NO_WIDTH)
        elif cell.inked:
            widest = max((widths[index] for index in spaces), default=0.0)
            if runs and spaces:
                gap = (cell.start - runs[-1][1], widest)
                _between(read, spaces, (text[last], text[cell.char]), gap, box.style)
            if runs and not spaces:
                runs[-1] = (min(runs[-1][0], cell.start), max(runs[-1][1], cell.end))
            else:
                left = left if runs else widest
                runs.append((cell.start, cell.end))
            spaces, last = [], cell.char
    right = max((widths[index] for index in spaces), default=0.0)
    kept = [index for index in range(len(text)) if index not in blank]
    lead, trail = (kept[0], kept[-1] + 1) if kept else (len(text), 0)
    ends = max(widths[:lead], default=0.0), max(widths[trail:], default=0.0)
    ink = (min(run[0] for run in runs), max(run[1] for run in runs)) if runs else None
    return DrawnText("".join(read), ink, *ends, (left if ink else right, right), tuple(runs))


def _blanks(text: str, cells: list[Cell]) -> set[int]:
    """The characters the page draws as a blank advance: spaces, and glyphs of no ink."""
    inked = {cell.char for cell in cells if cell.inked}
    blank = {cell.char for cell in cells if cell.char not in inked and _is_glyph(text[cell.char])}
    return blank | {index for index, char in enumerate(text) if is_space(char)}


def _between(
    read: list[str], spaces: list[int], sides: tuple[str, str], gap: tuple[float, float], style: Any
) -> None:
    """Read the blanks `spaces` between two inked glyphs (`sides`, their characters) as the page
    draws them, the glyphs `gap[0]` apart and the widest blank `gap[1]` wide: left out where
    they leave no gap a reader sees; one GROUPING or one space between two digits; as written
    otherwise."""
    drawn, widest = gap
    if drawn < least_gap(widest, style["font_size"]):
        for index in spaces:
            read[index] = ""
    elif digits_meet(*sides):
        first, *others = sorted(spaces)
        read[first] = digit_gap(drawn, group_gap(style))
        for index in others:
            read[index] = ""


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
