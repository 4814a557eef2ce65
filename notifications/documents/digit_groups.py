"""Whether two digits the page draws with a gap between them read as one number: Russian groups a
number's digits with a no-break space (Babel's ru: 1 159,70 €), French with a narrow one, so a
reader takes a digit drawn a word space from a number for a group of it, whatever character,
margin or padding draws the gap. The reading of the page (drawn_spaces.py, drawn_lines.py)
writes GROUPING between two digits whose glyphs lie no further apart than group_gap of their
font, and a space between two further apart, for the check of the legal elements
(value_places.py) to read the first as one number and the second as two. Measured on the font
Pango sets the text in (pango_glyphs.py), in the process that lays out (layout.py)."""

from __future__ import annotations

from typing import Any

from notifications.documents.pango_glyphs import text_cells

# What the reading writes between two digits a word space apart or less: the no-break space
# Russian groups digits with, so that a value's own group (1 159,70 €) reads as written.
GROUPING = "\u00a0"
# A word space and a quarter: a group's space is one word space of the font (DejaVu Sans's is
# 0.32 em, a monospaced font's 0.6 em), which a line's justification does not widen (WeasyPrint
# widens U+0020 only); a figure space (a digit's width, 0.5 to 0.64 em in a proportional font)
# and a table's cells with their padding (the shipped template's 2 mm, 0.6 em of its 9.5 pt)
# lie further apart.
GROUP_GAP_SHARE = 1.25
# The fonts whose word space was measured (a text's style's font, by what sets its space's
# width); a bound, not an eviction policy: the styles of one layout are few.
_WORD_SPACES_KEPT = 256
_word_spaces: dict[tuple[Any, ...], float] = {}


def group_gap(style: Any) -> float:
    """The widest gap between the glyphs of two digits of a text in `style` that reads as
    grouping them: GROUP_GAP_SHARE of its font's word space, with the letter-spacing after the
    digit and after the space."""
    letters = 0.0 if style["letter_spacing"] == "normal" else style["letter_spacing"]
    return max(GROUP_GAP_SHARE * _word_space(style) + 2 * letters, 0.0)


def digit_gap(gap: float, widest: float) -> str:
    """What to read between two digits whose glyphs lie `gap` apart, where either's group_gap is
    at most `widest`: GROUPING within it, a space beyond."""
    return GROUPING if gap <= widest else " "


def digits_meet(before: str, after: str) -> bool:
    """Whether `before` ends and `after` starts with a digit, the spaces and invisible
    formatting characters at their ends aside."""
    last, first = _edge(before, from_end=True), _edge(after, from_end=False)
    return last.isdigit() and first.isdigit()


def digits_at_ends(text: str) -> tuple[bool, bool]:
    """Whether `text` starts, and ends, with a digit, the spaces and invisible formatting
    characters at its ends aside."""
    return _edge(text, from_end=False).isdigit(), _edge(text, from_end=True).isdigit()


def _edge(text: str, *, from_end: bool) -> str:
    chars = reversed(text) if from_end else iter(text)
    return next((char for char in chars if not char.isspace() and char.isprintable()), "")


def _word_space(style: Any) -> float:
    """The advance of a word space (U+0020) in the text's font, as the font gives it (its own
    width: a word-spacing or justification added to it is a gap the page draws, not the font)."""
    key = (
        tuple(style["font_family"]),
        style["font_size"],
        style["font_style"],
        style["font_weight"],
        style["font_stretch"],
        str(style["font_feature_settings"]),
        str(style["font_variation_settings"]),
    )
    if key not in _word_spaces:
        if len(_word_spaces) >= _WORD_SPACES_KEPT:
            _word_spaces.clear()
        cells = text_cells(style, " ")
        _word_spaces[key] = max((cell.end - cell.start for cell in cells), default=0.0)
    return _word_spaces[key]
