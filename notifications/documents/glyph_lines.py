"""Where a shown text's glyphs stand on the page's lines, from the band page_text.py measures
(piled_text.GlyphBand): the line they stand on, their capitals' height and their font's size as
drawn; and so whether two texts stand on one line, and how far apart they must lie to be set
apart as by a space. Shared by the reading of a line's texts in turn (drawn_spaces.py) and of
texts drawn together across boxes (drawn_lines.py), so that both tell a line alike. Plain
geometry, so that the child process that lays out (layout.py) needs nothing more.

Two texts stand on one line where their baselines meet where the texts meet, less than
LINE_BASELINE_SHARE of the smaller capital's height apart: a text raised or lowered further (a
superscript, a subscript) stands off the line, and is read apart from the texts on it, as a
footnote's mark is."""

from __future__ import annotations

from math import hypot, radians, tan

from notifications.documents.glyph_bands import GlyphBand, Point

# Texts on a line this far apart, in their font's size, are set apart as by a space (about a
# quarter of an em: a label and its value in spans with a margin between): read as one.
SPACED_EM = 0.25
# A text turned further than this from the page's lines runs across them more than along them,
# and continues no word of theirs; one turned less (an italic's slant is 12 degrees) may.
MAX_TILT_DEGREES = 45
# Texts whose baselines lie less than half a capital apart sit on one line. A superscript is
# raised half its own em (WeasyPrint's vertical-align: super, as Pango's), in <sup> a font a
# sixth smaller: seven tenths of its capital, a line of its own, such as a footnote's mark; a
# digit raised a fifth of an em is not. The next line's baseline is a line-height away, past a
# capital's height in any layout meant to be read.
LINE_BASELINE_SHARE = 0.5


def on_one_line(first: GlyphBand, second: GlyphBand) -> bool:
    """Whether two texts' baselines meet where the texts meet (the left one's right end, the
    other's left end), less than LINE_BASELINE_SHARE of the smaller capital's height apart."""
    near, far = sorted((first, second), key=lambda band: (band.on_page[0], band.on_page[2]))
    drop = _baseline_ends(near)[1][1] - _baseline_ends(far)[0][1]
    return abs(drop) < LINE_BASELINE_SHARE * min(_cap_height(near), _cap_height(far))


def spaced(first: GlyphBand, second: GlyphBand) -> float:
    """SPACED_EM of the larger font of two texts, as drawn on the page."""
    return SPACED_EM * max(em_drawn(first), em_drawn(second))


def em_drawn(band: GlyphBand) -> float:
    """The text's font size as the page draws it, across its line."""
    return band.em * _across(band)


def along_page(band: GlyphBand, length: float) -> float:
    """How far across the page a length along the text's line reaches."""
    return abs(band.matrix.values[0]) * length if band.matrix else length


def upright(band: GlyphBand) -> bool:
    """Whether the text runs along the page's lines, within MAX_TILT_DEGREES."""
    if not band.matrix:
        return True
    a, b, *_ = band.matrix.values  # the direction of the text's line on the page
    return abs(b) <= tan(radians(MAX_TILT_DEGREES)) * abs(a)


def _across(band: GlyphBand) -> float:
    """How much its transformation scales a length across the text's line (1: none)."""
    if not band.matrix:
        return 1.0
    a, b, c, d, _, _ = band.matrix.values
    along = hypot(a, b)  # the length of the line's unit on the page
    return abs(a * d - b * c) / along if along else 0.0


def _cap_height(band: GlyphBand) -> float:
    return (band.rect[3] - band.rect[1]) * _across(band)


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
