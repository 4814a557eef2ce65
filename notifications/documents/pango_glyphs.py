"""The glyphs Pango sets for a text box, the way WeasyPrint sets them to draw it (draw/text.py:
the box's style, its text and its justification spacing): where each glyph's advance starts and
ends, and whether it draws any ink. What drawn_spaces.py reads a line's gaps from, and
digit_groups.py a font's word space.

WeasyPrint documents no way to a box's glyphs, so this uses its text.line_break.Layout and the
Pango functions its text.ffi declares, public names of weasyprint (pinned in requirements.in);
the tests of page_text.py fail on a release that changes them. Plain calls, in the process that
lays out (layout.py)."""

from __future__ import annotations

from typing import Any, NamedTuple


class Cell(NamedTuple):
    """A glyph: the index of its character in the text (a cluster's first), where its advance
    as its font gives it starts and ends from the box's left (the pen's position and the
    glyph's offset), and whether it draws ink (a blank glyph, U+2800, draws none)."""

    char: int
    start: float
    end: float
    inked: bool


def glyph_cells(box: Any) -> list[Cell]:
    """The glyphs of a WeasyPrint TextBox, left to right."""
    return text_cells(box.style, box.text, box.justification_spacing)


def text_cells(style: Any, text: str, justification_spacing: float = 0.0) -> list[Cell]:
    """The glyphs Pango sets for `text` in `style` on one line, left to right."""
    from weasyprint.text.ffi import FROM_UNITS, ffi, pango
    from weasyprint.text.line_break import Layout

    offsets: dict[int, int] = {}  # each character's index by its offset in UTF-8, as Pango counts
    offset = 0
    for index, char in enumerate(text):
        offsets[offset] = index
        offset += len(char.encode())
    layout = Layout(style, justification_spacing)
    layout.set_text(text, justify=True)
    line, _ = layout.get_first_line()
    ink, logical = ffi.new("PangoRectangle *"), ffi.new("PangoRectangle *")
    cells: list[Cell] = []
    pen, run = 0.0, line.runs
    while run != ffi.NULL:
        item, glyphs = run.data.item, run.data.glyphs
        for glyph in range(glyphs.num_glyphs):
            info = glyphs.glyphs[glyph]
            at = offsets.get(item.offset + glyphs.log_clusters[glyph])
            pango.pango_font_get_glyph_extents(item.analysis.font, info.glyph, ink, logical)
            start = pen + info.geometry.x_offset * FROM_UNITS
            if at is not None:
                inked = ink.width > 0 and ink.height > 0
                cells.append(Cell(at, start, start + logical.width * FROM_UNITS, inked))
            pen += info.geometry.width * FROM_UNITS
        run = run.next
    return cells
