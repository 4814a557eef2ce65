"""Whether a box's content and a text box show on a laid-out page, and how a box's content is
drawn there: what page_text.py asks of each box it reads. Read from WeasyPrint's box tree
after the layout, in the process that lays out (layout.py).

A text box counts as shown when it is visible; its font, as transformed, is at least
MIN_SHOWN_FONT_SIZE_PT along the axis the transform shrinks most; its colour, as transparent
as its alpha and every ancestor's opacity make it, stands out from every colour painted under
its glyphs and with every fill painted over them (painted_colours.py): its ancestors'
backgrounds, gradients, inset shadows and border images, and whatever any box paints before or
after it where its glyphs lie, in WeasyPrint's paint order (paint_order.py: a border it
overflows onto, a column rule, its own underline, a box positioned over it); its glyphs lie on
the sheet, inside every ancestor's clip (overflow, clip, a line's ellipsis) and off the band
every ancestor's outline paints over it (page_areas.py); its letters advance by at least half
their width, and no other shown text's inked glyphs are laid along its own (piled_text.py). A
box of a negative z-index counts as hidden: its stacking context's backgrounds are painted over
it. One a reader still sees though it shows no value is faint, read as letters no value holds,
so that a digit of it runs into a value it is set against: too pale but seen
(painted_colours.py), smaller than MIN_SHOWN_FONT_SIZE_PT but not than MIN_SEEN_FONT_SIZE_PT,
or with a part of its glyphs clipped away or under an outline and a part left in view. Not
seen: a text laid over it that is not shown itself (too small, too pale, clipped in part),
what a fill's bounds overstate (a rounded corner, a dash: counted as the band they lie in),
and a glyph clipped to a part that stands off its own baseline (a digit cut to its top by an
inline-block of half its height, read on the line of its baseline, below the value's)."""

from __future__ import annotations  # WeasyPrint's classes name types only: loaded when laid out

from dataclasses import dataclass, replace
from typing import Any

from notifications.documents.contrast import RGB
from notifications.documents.glyph_bands import GlyphBand
from notifications.documents.page_areas import (
    TOLERANCE_PX,
    Area,
    Ring,
    box_clip,
    intersection,
    least_stretch,
    on_page,
    outline_covers,
    outline_hides,
    outline_ring,
    padding_box,
    sunk,
    within,
)
from notifications.documents.painted_boxes import Painting
from notifications.documents.painted_colours import Seen, backdrops_under, border_image_backdrops, colour_seen
from notifications.documents.piled_text import piled_within

# Below 4 pt no print and no screen at 100 % is read (fine print runs at 6 to 8 pt); hiding
# uses 0 to 1 pt.
MIN_SHOWN_FONT_SIZE_PT = 4
# But a reader still sees a mark down to 1 pt (a capital a quarter of a millimetre tall, a speck
# of print), and reads a digit that small against a value into it, as a pale digit
# (painted_colours.MIN_SEEN_CONTRAST): below, a text is seen by no one (the hidings' 0 and 1 px).
MIN_SEEN_FONT_SIZE_PT = 1
_PX_PER_PT = 96 / 72  # WeasyPrint's lengths are CSS pixels
# The glyphs' band tested against the clips: from the baseline up a capital's height (about
# 0.7 em), since a line's own box may be taller than a block that clips it and still shows it.
_CAP_HEIGHT_EM = 0.7


@dataclass(frozen=True)
class Drawn:
    """How a box's content is drawn: its ancestors' opacities multiplied, the colours that may
    lie under it, the part of the page it may show in, its ancestors' transformation from its
    coordinates to the page's (None: none), and their outlines, painted over it."""

    opacity: float
    backdrops: frozenset[RGB]
    area: Area
    matrix: Any
    rings: tuple[Ring, ...] = ()


def inside(box: Any, outer: Drawn, *, clips: bool = True) -> Drawn | None:
    """How `box`'s content is drawn, as WeasyPrint's draw/ package draws it; None if nothing of
    it shows, or what shows cannot be told."""
    style = box.style
    matrix = outer.matrix
    if sunk(box):
        return None
    if box.transformation_matrix is not None:  # set by the Page, for a box with a transform
        if not box.transformation_matrix.determinant:
            return None  # flattened: WeasyPrint draws nothing of it
        matrix = box.transformation_matrix @ matrix if matrix else box.transformation_matrix
    if style["mask_border_source"][0] != "none":
        return None  # an image as an alpha mask over it: what shows through is not known
    backdrops = backdrops_under(outer.backdrops, box.background)
    if backdrops is not None and style["border_image_source"][0] != "none":
        backdrops = border_image_backdrops(backdrops, getattr(box, "border_image", None))
    if backdrops is None:
        return None
    area = outer.area
    if clips and style["overflow"] != "visible":
        area = intersection(area, on_page(matrix, *padding_box(box)))
    if (clip := box_clip(box)) is not None:
        area = intersection(area, on_page(matrix, *clip))
    ring = outline_ring(box, matrix)
    rings = (*outer.rings, ring) if ring else outer.rings
    return Drawn(outer.opacity * style["opacity"], backdrops, area, matrix, rings)


def line_inside(line: Any, drawn: Drawn) -> Drawn | None:
    """A line whose block clips it with text-overflow: ellipsis is cut at its own width when
    drawn; one a line-clamp ends may lose its last words to the ellipsis."""
    if line.block_ellipsis != "none":
        return None
    if line.text_overflow != "ellipsis":
        return drawn
    x1, _, x2, _ = on_page(drawn.matrix, line.position_x, line.position_y, line.width, line.height)
    return replace(drawn, area=intersection(drawn.area, (x1, drawn.area[1], x2, drawn.area[3])))


def text_shown(box: Any, drawn: Drawn, painting: Painting) -> tuple[GlyphBand | None, Seen]:
    """The band of the text's glyphs where the text is shown or faint (the module's rule but for
    texts piled onto one another), and which (None and HIDDEN where neither). A text too small
    to show a value (under MIN_SHOWN_FONT_SIZE_PT) or shown in part (a clip or an outline over
    some of its glyphs) is faint where a reader still sees it: at MIN_SEEN_FONT_SIZE_PT or more,
    a part of its glyphs left in view."""
    style = box.style
    size = style["font_size"]
    shown_size = size * least_stretch(drawn.matrix)
    hidden = None, Seen.HIDDEN
    if style["visibility"] != "visible" or shown_size < MIN_SEEN_FONT_SIZE_PT * _PX_PER_PT:
        return hidden
    if piled_within(box.width, box.text, style["letter_spacing"], style["word_spacing"], size):
        return hidden
    top = box.position_y + box.baseline - _CAP_HEIGHT_EM * size
    left, right = sorted((box.position_x, box.position_x + box.width))  # < 0 wide: letters set back
    glyphs = on_page(drawn.matrix, left, top, right - left, _CAP_HEIGHT_EM * size)
    whole = within(glyphs, drawn.area) and not any(outline_covers(glyphs, ring) for ring in drawn.rings)
    if not whole and not _partly_seen(glyphs, drawn):
        return hidden
    alpha = style["color"].alpha * drawn.opacity
    seen = colour_seen(painting, box, glyphs, _CAP_HEIGHT_EM * shown_size, alpha, drawn.backdrops)
    if seen is Seen.HIDDEN:
        return hidden
    if not whole or shown_size < MIN_SHOWN_FONT_SIZE_PT * _PX_PER_PT:
        seen = Seen.FAINT
    return GlyphBand((left, top, right, top + _CAP_HEIGHT_EM * size), drawn.matrix, glyphs, size), seen


def _partly_seen(glyphs: Area, drawn: Drawn) -> bool:
    """Whether some of the glyphs lie inside every clip (more than TOLERANCE_PX each way) and
    no outline covers all of that part."""
    x1, y1, x2, y2 = part = intersection(glyphs, drawn.area)
    if x2 - x1 <= TOLERANCE_PX or y2 - y1 <= TOLERANCE_PX:
        return False
    return not any(outline_hides(part, ring) for ring in drawn.rings)
