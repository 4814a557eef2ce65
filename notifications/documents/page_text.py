"""The text the laid-out pages of a document show, which the check of its legal elements reads
(legal_elements.py): a value hidden with CSS (display: none, white on white, a font of 0 pt,
placed off the page, clipped away or painted over) is left out as surely as a value never
written. Read from WeasyPrint's box tree after the layout, in the process that lays out
(layout.py), with WeasyPrint, the standard library and this package's bidi_overrides.py,
contrast.py, drawn_lines.py, drawn_spaces.py, glyph_lines.py, page_areas.py, paint_order.py,
painted_boxes.py, painted_colours.py and piled_text.py only. Characters a bidi override draws
in a forced order are not read (bidi_overrides.py); a space is read where the page draws a gap,
whether or not the text holds one (drawn_spaces.py); texts a page draws as one word, though
their boxes are read apart or in another order (a digit in an inline-block or a float against
a value), are read together as drawn (drawn_lines.py).

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
it. One too pale but still seen (painted_colours.py) is faint, read as letters no value holds:
it shows no value, but a pale digit runs into one. Not seen: a text laid over it that is not
shown itself (too small, too pale, clipped in part), and what a fill's bounds overstate (a
rounded corner, a dash: counted as the band they lie in)."""

from __future__ import annotations  # WeasyPrint's classes name types only: loaded when laid out

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from notifications.documents.bidi_overrides import overridden_replaced
from notifications.documents.contrast import RGB, WHITE
from notifications.documents.drawn_lines import UNSHOWN, Line, Placed, read_as_drawn
from notifications.documents.drawn_spaces import DrawnText, LineGaps, box_text, drawn_text
from notifications.documents.page_areas import (
    Area,
    Ring,
    box_clip,
    intersection,
    least_stretch,
    on_page,
    outline_covers,
    outline_ring,
    padding_box,
    sunk,
    within,
)
from notifications.documents.paint_order import paint_order
from notifications.documents.painted_boxes import Painting
from notifications.documents.painted_colours import (
    Seen,
    backdrops_under,
    border_image_backdrops,
    colour_seen,
    faint_read,
)
from notifications.documents.piled_text import GlyphBand, inked, piled, piled_within

if TYPE_CHECKING:
    from weasyprint.document import Document, Page

# Below 4 pt no print and no screen at 100 % is read (fine print runs at 6 to 8 pt); hiding
# uses 0 to 1 pt.
MIN_SHOWN_FONT_SIZE_PT = 4
_PX_PER_PT = 96 / 72  # WeasyPrint's lengths are CSS pixels
# The glyphs' band tested against the clips: from the baseline up a capital's height (about
# 0.7 em), since a line's own box may be taller than a block that clips it and still shows it.
_CAP_HEIGHT_EM = 0.7


@dataclass(frozen=True)
class _Drawn:
    """How a box's content is drawn: its ancestors' opacities multiplied, the colours that may
    lie under it, the part of the page it may show in, its ancestors' transformation from its
    coordinates to the page's (None: none), and their outlines, painted over it."""

    opacity: float
    backdrops: frozenset[RGB]
    area: Area
    matrix: Any
    rings: tuple[Ring, ...] = ()


def pages_shown_text(document: Document) -> str:
    """The text the pages show, block by block (a paragraph, a table cell, a margin box): its
    lines in order, a line feed between them, and the parts of a block that page breaks split
    read as one, whatever lies between them on the pages (the row's other cells, the margins),
    so that a value broken across two pages is read whole. UNSHOWN between blocks, and for
    each text or box not shown, a text another is piled on too, once its page is read; then
    a line the page draws as one with another box's texts reads as drawn (drawn_lines.py)."""
    blocks: dict[Any, list[str]] = {}
    for page in document.pages:
        texts: list[Placed] = []  # each text read, where it went and where the page draws it
        inks: list[tuple[Placed, GlyphBand]] = []  # each shown text's inked glyphs (piled_text.py)
        page_box = laid_out_box(page)
        painting = paint_order(page_box)
        sheet = _Drawn(1.0, frozenset({WHITE}), (0.0, 0.0, page.width, page.height), None)
        drawn = _inside(page_box, sheet, clips=False)
        backdrops = backdrops_under(drawn.backdrops, page_box.canvas_background) if drawn else None
        for child in page_box.children:
            inner = replace(drawn, backdrops=backdrops) if drawn and backdrops else None
            if inner and child.is_for_root_element and page_box.style["overflow"] != "visible":
                viewport = on_page(None, *padding_box(page_box))  # the root's overflow, as drawn
                inner = replace(inner, area=intersection(inner.area, viewport))
            _read(child, inner, painting, (blocks, texts, inks))
        for index in piled([band for _, band in inks]):
            text = inks[index][0]
            text.line.parts[text.index] = UNSHOWN
        read_as_drawn(texts)
    return UNSHOWN.join("".join(parts) for parts in blocks.values())


def laid_out_box(page: Page) -> Any:
    """The page's box tree. WeasyPrint documents no way to it (a Page gives its size, links and
    anchors, and paints itself), so this reads Page._page_box, which holds it from the layout
    to the paint; weasyprint is pinned in requirements.in, and the tests of this module fail
    on a release that moves it."""
    return page._page_box


def _read(
    root: Any,
    drawn: _Drawn | None,
    painting: Painting,
    found: tuple[dict[Any, list[str]], list[Placed], list[tuple[Placed, GlyphBand]]],
) -> None:
    """Add the text of `root`'s boxes, in the tree's order, to the block each is in: a box that
    is neither a line nor inline starts one, and a box a page break split continues its
    element's (the parts of a split box keep their element). Each text, and each inline box
    not shown, goes to `texts` too, with its line, its place in its block and where it is
    drawn, for the check of the order drawn; and each shown text's inked glyphs to `inks`, for
    the check of piled texts."""
    from weasyprint.formatting_structure.boxes import InlineBox, LineBox, TextBox

    blocks, texts, inks = found
    gaps = LineGaps()
    stack: list[tuple[Any, _Drawn | None, list[str], Line | None]] = [(root, drawn, [], None)]
    while stack:
        box, outer, parts, line = stack.pop()
        if isinstance(box, TextBox):
            band, seen = _text_shown(box, outer, painting) if outer else (None, Seen.HIDDEN)
            read = drawn_text(box) if band else box_text(box, UNSHOWN)
            separator, text = gaps.spaced(parts, box, read, band)
            parts.append(separator)
            line = line or Line(parts, len(parts) - 1, rtl=False)  # WeasyPrint lays texts in lines
            placed = _placed(box, outer, line, band if read.ink else None, read)  # None: no glyph
            texts.append(placed)
            if band and read.ink and placed.ink and seen is Seen.SHOWN:
                inks.append((placed, inked(band, placed.ink)))  # its glyphs but spaces
            text = faint_read(text) if seen is Seen.FAINT else text
            parts.append(overridden_replaced(text, UNSHOWN) if band else UNSHOWN)
            continue
        if isinstance(box, LineBox):
            line = Line(parts, len(parts), rtl=box.style["direction"] == "rtl")
            parts.append("\n")
            gaps.start_line(id(parts), rtl=box.style["direction"] == "rtl")
        elif not isinstance(box, InlineBox):
            key = id(box) if box.element is None else (box.element, box.element_tag)
            parts, line = blocks.setdefault(key, []), None
        inner = _inside(box, outer) if outer else None
        if inner is not None and isinstance(box, LineBox):
            inner = _line_inside(box, inner)
        if inner is None:
            if line and isinstance(box, InlineBox):
                texts.append(_placed(box, outer, line, None))
            parts.append(UNSHOWN)
            continue
        stack.extend((child, inner, parts, line) for child in reversed(box.children))


def _placed(
    box: Any, drawn: _Drawn | None, line: Line, band: GlyphBand | None, read: DrawnText | None = None
) -> Placed:
    """The box as read at the end of its line's parts, and where the page draws it across; a
    text's glyphs too (where it draws none, a point at its start)."""
    matrix = drawn.matrix if drawn else None
    left, _, right, _ = band.on_page if band else on_page(matrix, box.position_x, 0, box.width, 0)
    if read is None:
        return Placed(line, len(line.parts), left, right, band)
    start, end = read.ink or (0.0, 0.0)
    ink = (box.position_x + start, box.position_x + end)
    return Placed(line, len(line.parts), left, right, band, ink, read.sides)


def _inside(box: Any, outer: _Drawn, *, clips: bool = True) -> _Drawn | None:
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
    return _Drawn(outer.opacity * style["opacity"], backdrops, area, matrix, rings)


def _line_inside(line: Any, drawn: _Drawn) -> _Drawn | None:
    """A line whose block clips it with text-overflow: ellipsis is cut at its own width when
    drawn; one a line-clamp ends may lose its last words to the ellipsis."""
    if line.block_ellipsis != "none":
        return None
    if line.text_overflow != "ellipsis":
        return drawn
    x1, _, x2, _ = on_page(drawn.matrix, line.position_x, line.position_y, line.width, line.height)
    return replace(drawn, area=intersection(drawn.area, (x1, drawn.area[1], x2, drawn.area[3])))


def _text_shown(box: Any, drawn: _Drawn, painting: Painting) -> tuple[GlyphBand | None, Seen]:
    """The band of the text's glyphs where the text is shown or faint (the module's rule but for
    texts piled onto one another), and which (None and HIDDEN where neither)."""
    style = box.style
    size = style["font_size"]
    shown_size = size * least_stretch(drawn.matrix)
    hidden = None, Seen.HIDDEN
    if style["visibility"] != "visible" or shown_size < MIN_SHOWN_FONT_SIZE_PT * _PX_PER_PT:
        return hidden
    if piled_within(box.width, box.text, style["letter_spacing"], style["word_spacing"], size):
        return hidden
    top = box.position_y + box.baseline - _CAP_HEIGHT_EM * size
    left, right = sorted((box.position_x, box.position_x + box.width))  # < 0 wide: letters set back
    glyphs = on_page(drawn.matrix, left, top, right - left, _CAP_HEIGHT_EM * size)
    if not within(glyphs, drawn.area) or any(outline_covers(glyphs, ring) for ring in drawn.rings):
        return hidden
    alpha = style["color"].alpha * drawn.opacity
    seen = colour_seen(painting, box, glyphs, _CAP_HEIGHT_EM * shown_size, alpha, drawn.backdrops)
    if seen is Seen.HIDDEN:
        return hidden
    return GlyphBand((left, top, right, top + _CAP_HEIGHT_EM * size), drawn.matrix, glyphs, size), seen
