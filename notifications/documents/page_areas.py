"""Where on a laid-out page a box of WeasyPrint's draws what page_text.py reads: rectangles through
the boxes' transformations, and what WeasyPrint's draw/ package paints over a box's text after
it (an ancestor's outline) or under the backgrounds of its stacking context (a negative
z-index). Plain arithmetic on the boxes' laid-out lengths, in CSS pixels."""

from math import sqrt
from typing import Any

Area = tuple[float, float, float, float]  # x1, y1, x2, y2 on the page
# An outline's band on the page: what lies inside its outer area and outside its inner one (None:
# its offset swallows the box, and the band covers all of it).
Ring = tuple[Area | None, Area]
TOLERANCE_PX = 1.0  # rounding in the layout's positions


def sunk(box: Any) -> bool:
    """A box of a negative z-index is drawn before the backgrounds of its stacking context's
    blocks, its own ancestors' among them, which may cover it: what it shows cannot be told."""
    z_index = box.style["z_index"]
    return z_index != "auto" and z_index < 0 and (box.style["position"] != "static" or box.is_grid_item)


def outline_ring(box: Any, matrix: Any) -> Ring | None:
    """The band `box`'s outline paints, as WeasyPrint's draw_outline does: after everything of
    its stacking context, so over the box's own text too (inside it with a negative
    outline-offset, over what overflows it otherwise)."""
    style = box.style
    width, offset = style["outline_width"], style["outline_offset"]
    colour = style["color"] if style["outline_color"] == "currentcolor" else style["outline_color"]
    if style["visibility"] != "visible" or not width or not colour.alpha:
        return None
    x, y, wide, high = box.border_box_x(), box.border_box_y(), box.border_width(), box.border_height()
    out = offset + width
    outer = on_page(matrix, x - out, y - out, wide + 2 * out, high + 2 * out)
    inner = on_page(matrix, x - offset, y - offset, wide + 2 * offset, high + 2 * offset)
    return (inner if min(wide, high) + 2 * offset > 0 else None), outer


def outline_covers(glyphs: Area, ring: Ring) -> bool:
    """Whether an outline's band covers some of the glyphs."""
    inner, outer = ring
    x1, y1, x2, y2 = intersection(glyphs, outer)
    meets = x2 - x1 > TOLERANCE_PX and y2 - y1 > TOLERANCE_PX
    return meets and not (inner and within(glyphs, inner))


def outline_hides(glyphs: Area, ring: Ring) -> bool:
    """Whether an outline's band covers all of the glyphs."""
    inner, outer = ring
    if not within(glyphs, outer):
        return False
    if inner is None:
        return True
    x1, y1, x2, y2 = intersection(glyphs, inner)
    return x2 - x1 <= TOLERANCE_PX or y2 - y1 <= TOLERANCE_PX


def padding_box(box: Any) -> Area:
    return box.padding_box_x(), box.padding_box_y(), box.padding_width(), box.padding_height()


def on_page(matrix: Any, x: float, y: float, width: float, height: float) -> Area:
    """The rectangle's bounds on the page, through `matrix` (None: as it is)."""
    corners = [(x, y), (x + width, y), (x, y + height), (x + width, y + height)]
    if matrix:
        corners = [matrix.transform_point(*corner) for corner in corners]
    xs, ys = [corner[0] for corner in corners], [corner[1] for corner in corners]
    return min(xs), min(ys), max(xs), max(ys)


def intersection(first: Area, second: Area) -> Area:
    """Empty (x1 > x2 or y1 > y2) where they do not meet."""
    (x1, y1, x2, y2), (u1, v1, u2, v2) = first, second
    return max(x1, u1), max(y1, v1), min(x2, u2), min(y2, v2)


def within(inner: Area, outer: Area) -> bool:
    tolerance = TOLERANCE_PX
    return (
        inner[0] >= outer[0] - tolerance
        and inner[1] >= outer[1] - tolerance
        and inner[2] <= outer[2] + tolerance
        and inner[3] <= outer[3] + tolerance
    )


def least_stretch(matrix: Any) -> float:
    """The factor by which `matrix` (None: none) scales a length in the direction it shrinks
    most, the smaller singular value of its linear part: a glyph is read by its narrowest
    side, so scale(2.5, 0.04) measures 0.04, and skewX(88deg), which lays each glyph's
    strokes within 2 degrees of the line (a sliver tan(2°) as thick as the glyph is tall),
    0.035. The square root of the area's scale (the determinant) would count both as the
    stretched axis made up for the squashed one."""
    if not matrix:
        return 1.0
    a, b, c, d, _, _ = matrix.values
    squares, area = a * a + b * b + c * c + d * d, abs(a * d - b * c)
    largest = sqrt((squares + sqrt(max(squares * squares - 4 * area * area, 0.0))) / 2)
    return area / largest if largest else 0.0  # the two singular values multiply to the area


def box_clip(box: Any) -> tuple[float, float, float, float] | None:
    """The rectangle (x, y, width, height) an absolutely positioned box's `clip` cuts its
    painting to, as draw_stacking_context reads it (None: no clip)."""
    if not (box.is_absolutely_positioned() and box.style["clip"]):
        return None
    top, right, bottom, left = box.style["clip"]
    right, left = (0 if right == "auto" else right), (box.border_width() if left == "auto" else left)
    bottom, top = (box.border_height() if bottom == "auto" else bottom), (0 if top == "auto" else top)
    return box.border_box_x() + right, box.border_box_y() + top, left - right, bottom - top
