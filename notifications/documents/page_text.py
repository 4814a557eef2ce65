"""The text the laid-out pages of a document show, which the check of its legal elements reads
(legal_elements.py): a value hidden with CSS (display: none, white on white, a font of 0 pt,
placed off the page, clipped away or painted over) is left out as surely as a value never
written. Read from WeasyPrint's box tree after the layout, in the process that lays out
(layout.py), with WeasyPrint, the standard library and this package's bidi_overrides.py,
contrast.py, digit_groups.py, drawn_lines.py, drawn_spaces.py, glyph_bands.py, glyph_lines.py,
line_gaps.py, page_areas.py, paint_order.py, painted_boxes.py, painted_colours.py,
pango_glyphs.py, piled_text.py and shown_boxes.py only. Which texts count as shown, too pale to show a value
but seen (faint), or hidden, is shown_boxes.py's rule. Characters a bidi override draws in a
forced order are not read (bidi_overrides.py); a space is read where the page draws a gap,
whether or not the text holds one (drawn_spaces.py, line_gaps.py), and between two digits as
grouping them or not (digit_groups.py); texts a page draws as one word, though their boxes are
read apart or in another order (a digit in an inline-block or a float against a value), are
read together as drawn (drawn_lines.py)."""

from __future__ import annotations  # WeasyPrint's classes name types only: loaded when laid out

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from notifications.documents.bidi_overrides import overridden_replaced
from notifications.documents.contrast import WHITE
from notifications.documents.digit_groups import digits_at_ends, group_gap
from notifications.documents.drawn_lines import UNSHOWN, Line, Placed, read_as_drawn
from notifications.documents.drawn_spaces import DrawnText, box_text, drawn_text
from notifications.documents.glyph_bands import GlyphBand, inked
from notifications.documents.glyph_lines import along_page
from notifications.documents.line_gaps import LineGaps
from notifications.documents.page_areas import intersection, on_page, padding_box
from notifications.documents.paint_order import paint_order
from notifications.documents.painted_boxes import Painting
from notifications.documents.painted_colours import Seen, backdrops_under, faint_read
from notifications.documents.piled_text import piled
from notifications.documents.shown_boxes import Drawn, inside, line_inside, text_shown

if TYPE_CHECKING:
    from weasyprint.document import Document, Page


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
        sheet = Drawn(1.0, frozenset({WHITE}), (0.0, 0.0, page.width, page.height), None)
        drawn = inside(page_box, sheet, clips=False)
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
    drawn: Drawn | None,
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
    stack: list[tuple[Any, Drawn | None, list[str], Line | None]] = [(root, drawn, [], None)]
    while stack:
        box, outer, parts, line = stack.pop()
        if isinstance(box, TextBox):
            band, seen = text_shown(box, outer, painting) if outer else (None, Seen.HIDDEN)
            read = drawn_text(box) if band else box_text(box, UNSHOWN)
            separator, text = gaps.spaced(parts, box, read, band)
            parts.append(separator)
            line = line or Line(parts, len(parts) - 1, rtl=False)  # WeasyPrint lays texts in lines
            placed = _placed(box, outer, line, band if read.ink else None, read)  # None: no glyph
            texts.append(placed)
            if band and read.runs and seen is Seen.SHOWN:
                inks.append((placed, _inked(box, band, read)))
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
        inner = inside(box, outer) if outer else None
        if inner is not None and isinstance(box, LineBox):
            inner = line_inside(box, inner)
        if inner is None:
            if line and isinstance(box, InlineBox):
                texts.append(_placed(box, outer, line, None))
            parts.append(UNSHOWN)
            continue
        stack.extend((child, inner, parts, line) for child in reversed(box.children))


def _inked(box: Any, band: GlyphBand, read: DrawnText) -> GlyphBand:
    """The band of a shown text's inked glyphs alone, between its blanks (piled_text.py)."""
    return inked(band, [(box.position_x + start, box.position_x + end) for start, end in read.runs])


def _placed(
    box: Any, drawn: Drawn | None, line: Line, band: GlyphBand | None, read: DrawnText | None = None
) -> Placed:
    """The box as read at the end of its line's parts, and where the page draws it across; a
    text's glyphs too (where it draws none, a point at its start)."""
    matrix = drawn.matrix if drawn else None
    left, _, right, _ = band.on_page if band else on_page(matrix, box.position_x, 0, box.width, 0)
    if read is None:
        return Placed(line, len(line.parts), left, right, band)
    start, end = read.ink or (0.0, 0.0)
    ink = (box.position_x + start, box.position_x + end)
    digits = digits_at_ends(read.text)
    gap = along_page(band, group_gap(box.style)) if band and any(digits) else 0.0
    return Placed(line, len(line.parts), left, right, band, ink, read.sides, digits, gap)
