"""Texts laid out onto another text's glyphs (blocks overlapping, a line-height of 0, a box
positioned onto a line), which page_text.py leaves out of what a page shows: the PDF draws both
texts' glyphs in one heap, and reads as neither. Plain geometry on the glyph bands page_text.py
measures, so that the child process that lays out (layout.py) needs nothing more.

A text counts as piled when another shown text's band covers parts of its own band longer in
all than PILED_RUN_EM of its font along its line (PILED_GLYPH_EM, half a glyph, where both run
along the page's lines: a glyph laid onto one of its own), each taller than PILED_BAND_SHARE
of its height, each band made of the runs of the text's inked glyphs alone (inked, from Pango's ink:
drawn_spaces.py): a text of spaces, blank glyphs and invisible characters (no-break spaces,
U+2800, a zero-width space) piles on nothing, and a text's spaces are no place another text
can pile on, as the page draws nothing there to heap onto, whatever glyphs lie either side.
Legitimate layouts stay short of one or the other: lines next to one another (their bands, a
capital's height above each baseline, meet only below a line-height of 0.7), texts end to end
on a line (their bands touch, or meet by less than an em where a negative margin pulls one
back by a little), and a text crossing it at a steep angle (a rotated label: it covers its own
capital's height of the line). A text laid along it, glyph on glyph, passes both. Not seen: a
single glyph turned across the line onto one of its glyphs (a minus sign turned upright across
a minus sign draws a plus), which covers less than PILED_RUN_EM."""

from __future__ import annotations

from itertools import islice
from typing import Any

from notifications.documents.glyph_bands import Area, GlyphBand, Point, through
from notifications.documents.glyph_lines import upright

# A text of the line's size crossing it at a right angle covers a capital's height (0.7 em) of
# its run, one at 70 degrees 1 em; one nearer the line's direction covers more.
PILED_RUN_EM = 1.0
# But a text laid along it, both running along the page's lines, piles on it by half a glyph (a
# digit is 0.5 to 0.64 em wide): one glyph laid onto one of its own (an 8 over its 3, a bar
# across a minus sign) heaps them into another character. Texts end to end on a line meet by
# less (a badge pulled back 0.1 em onto a value's end; a box pulled over a space covers none of
# its glyphs); a rotated label crossing it is not laid along it.
PILED_GLYPH_EM = 0.3
# A quarter of the band: lines of one font meet only below a line-height of 0.7, and cover a
# quarter of each other's capitals below 0.525, which no layout meant to be read comes near;
# above it, a line laid over another leaves three quarters of its capitals, where they differ.
PILED_BAND_SHARE = 0.25
# Letters advancing less than half their width each (letter-spacing: -0.3em on digits leaves
# 0.46 of it; -1em sets them back): within one text, its letters lie on one another.
PILED_ADVANCE_SHARE = 0.5
# A space is a quarter to a third of an em: a word-spacing below minus half an em sets the word
# after it back onto the one before (or off the page's left edge), whatever the whole text's
# width, which one space's spacing barely shortens (X DE999888777 at -60px draws E999X888777).
PILED_WORD_SPACING_EM = -0.5


def piled(bands: list[GlyphBand]) -> set[int]:
    """The indexes of the bands that another band covers as a piled text does. Only bands whose
    bounds on the page meet are compared, found by a sweep down the page, so that a page's
    lines are each compared with the few beside them, not with every other."""
    order = sorted(range(len(bands)), key=lambda index: bands[index].on_page[1])
    found: set[int] = set()
    for position, first in enumerate(order):
        x1, _, x2, bottom = bands[first].on_page
        for second in islice(order, position + 1, None):
            u1, top, u2, _ = bands[second].on_page
            if top >= bottom:
                break  # this band and every one after it start below the first's
            if u1 >= x2 or u2 <= x1:
                continue
            if _covers(bands[second], bands[first]):
                found.add(first)
            if _covers(bands[first], bands[second]):
                found.add(second)
    return found


def _covers(other: GlyphBand, band: GlyphBand) -> bool:
    """Whether `other` covers `band` as a piled text does, measured in `band`'s coordinates,
    where its glyphs are `em` tall and run along x, whatever transform draws them: the lengths
    along it where a run of `other`'s inked glyphs lies on one of its own, each across more
    than PILED_BAND_SHARE of its height, add up to more than PILED_RUN_EM, or PILED_GLYPH_EM
    where both run along the page's lines (glyph_lines.upright)."""
    height = band.rect[3] - band.rect[1]
    covered = 0.0
    for x1, y1, x2, y2 in _run_rects(other):
        corners: list[Point] = [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]  # in turn around it
        if other.matrix:
            corners = through(other.matrix, corners)
        if band.matrix:
            corners = through(band.matrix.invert, corners)
        for rect in _run_rects(band):
            piece = _clipped(corners, rect)
            xs, ys = [point[0] for point in piece], [point[1] for point in piece]
            if piece and max(ys) - min(ys) > PILED_BAND_SHARE * height:
                covered += max(xs) - min(xs)
    along = upright(other) and upright(band)
    return covered > (PILED_GLYPH_EM if along else PILED_RUN_EM) * band.em


def _run_rects(band: GlyphBand) -> list[Area]:
    """The rectangles of the band's runs of inked glyphs, in its coordinates."""
    _, top, _, bottom = band.rect
    return [(left, top, right, bottom) for left, right in band.runs] or [band.rect]


def _clipped(polygon: list[Point], rect: Area) -> list[Point]:
    """The part of the convex polygon inside the rectangle, cut by one of its sides at a time
    (Sutherland and Hodgman's clipping); empty where they do not meet."""
    x1, y1, x2, y2 = rect
    for axis, bound, side in ((0, x1, 1), (0, x2, -1), (1, y1, 1), (1, y2, -1)):
        kept: list[Point] = []
        for index, point in enumerate(polygon):
            previous = polygon[index - 1]
            point_in = side * (point[axis] - bound) >= 0
            if point_in != (side * (previous[axis] - bound) >= 0):
                share = (bound - previous[axis]) / (point[axis] - previous[axis])
                kept.append(
                    (
                        previous[0] + share * (point[0] - previous[0]),
                        previous[1] + share * (point[1] - previous[1]),
                    )
                )
            if point_in:
                kept.append(point)
        polygon = kept
        if not polygon:
            break
    return polygon


def piled_within(width: float, text: str, letter_spacing: Any, word_spacing: float, em: float) -> bool:
    """Whether a text's letters are set onto one another (a negative letter-spacing or
    word-spacing): its `width` as laid out is less than PILED_ADVANCE_SHARE of the width its
    glyphs take, which Pango gets by adding the spacings back (one letter-spacing a character,
    one word-spacing a space); or a word set back onto another (PILED_WORD_SPACING_EM)."""
    if word_spacing < PILED_WORD_SPACING_EM * em and any(char.isspace() for char in text.strip()):
        return True
    letters = 0.0 if letter_spacing == "normal" else letter_spacing
    spacing = letters * len(text) + word_spacing * (text.count(" ") + text.count("\u00a0"))
    if spacing >= 0 or len(text.strip()) < 2:
        return False
    return width < PILED_ADVANCE_SHARE * (width - spacing)
