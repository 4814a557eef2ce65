"""Where a shown text's glyphs lie on a laid-out page, as page_text.py measures them: the band
from its baseline up a capital's height along its inked glyphs, in its own coordinates and
through the transforms that draw it. What glyph_lines.py, piled_text.py and drawn_lines.py
read; plain geometry, so that the child process that lays out (layout.py) needs nothing more."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Area = tuple[float, float, float, float]  # x1, y1, x2, y2
Point = tuple[float, float]


@dataclass(frozen=True)
class GlyphBand:
    """Where a text box's glyphs lie: `rect`, in the box's own coordinates, runs along its width
    from its baseline up a capital's height; `matrix` takes those coordinates to the page's
    (None: they are the page's); `on_page` bounds the band on the page; `em` is its font size;
    `runs`, from and to along its width, are where its inked glyphs lie between its blanks
    (empty: all along it)."""

    rect: Area
    matrix: Any
    on_page: Area
    em: float
    runs: tuple[tuple[float, float], ...] = ()


def inked(band: GlyphBand, runs: Sequence[tuple[float, float]]) -> GlyphBand:
    """The band along its `runs` alone (from and to along its line, in its coordinates, each a
    run of inked glyphs): its spaces and blank glyphs left out, within it and at its ends."""
    runs = tuple((min(run), max(run)) for run in runs)
    left, right = min(run[0] for run in runs), max(run[1] for run in runs)
    _, top, _, bottom = band.rect
    corners: list[Point] = [(left, top), (right, top), (right, bottom), (left, bottom)]
    if band.matrix:
        corners = through(band.matrix, corners)
    xs, ys = [point[0] for point in corners], [point[1] for point in corners]
    bounds = (min(xs), min(ys), max(xs), max(ys))
    return GlyphBand((left, top, right, bottom), band.matrix, bounds, band.em, runs)


def through(matrix: Any, points: list[Point]) -> list[Point]:
    """The points through a transformation matrix."""
    return [(x, y) for x, y in (matrix.transform_point(*point) for point in points)]
