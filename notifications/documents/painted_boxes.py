"""What one box of WeasyPrint's paints on a page, as draw/ paints it, in rectangles of a colour
(paint_order.py says in what order, and why they are read): a box's outset shadows, background
colour and layers, inset shadows, border or border image and column rules; a text's underline
and overline, then the text, then its line-through; an outline and its descendants'. Bounds
only: a rounded corner, a dash or a ridge counts as the band it lies in, an image (an SVG) as a
fill of colours not known."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from notifications.documents.contrast import RGB, srgb
from notifications.documents.page_areas import Area, intersection, on_page

_SIDES = ("top", "right", "bottom", "left")


@dataclass(frozen=True)
class Fill:
    """A rectangle painted: its bounds on the page, cut by the clips around it; its colour (None:
    an image's, not known) and its alpha, its boxes' opacities multiplied in."""

    area: Area
    colour: RGB | None
    alpha: float


# The height of the page's rows that index the fills: a text's glyphs are compared with the fills
# of the rows they lie in only, not with every fill of the page.
ROW_PX = 48


@dataclass
class Painting:
    """A page's fills in paint order; for each text box drawn (by id), how many come before it;
    for each row of the page (ROW_PX tall, from its top), the indexes of the fills meeting it."""

    height: float  # the page's
    fills: list[Fill] = field(default_factory=list)
    text_at: dict[int, int] = field(default_factory=dict)
    rows: dict[int, list[int]] = field(default_factory=dict)

    def meeting(self, area: Area) -> list[int]:
        """The indexes, in paint order, of the fills whose rows `area` meets."""
        first, last = _rows(area, self.height)
        return sorted({index for row in range(first, last + 1) for index in self.rows.get(row, ())})


def _rows(area: Area, height: float) -> tuple[int, int]:
    top, bottom = max(area[1], 0.0), min(area[3], height)
    return int(top // ROW_PX), int(max(bottom, top) // ROW_PX)


@dataclass(frozen=True)
class State:
    """Where a box paints: through its transformation, inside its clips, at its opacity."""

    matrix: Any  # the transformation of the boxes' coordinates to the page's (None: none)
    clip: Area
    opacity: float


def add(painting: Painting, state: State, rect: tuple[float, float, float, float], colour: Any) -> None:
    """A rectangle (x, y, width, height, in the box's coordinates) painted in a tinycss2 colour
    (None: not known)."""
    if rect[2] <= 0 or rect[3] <= 0 or (colour is not None and not colour.alpha):
        return
    area = intersection(on_page(state.matrix, *rect), state.clip)
    if area[2] > area[0] and area[3] > area[1]:
        alpha = state.opacity * (colour.alpha if colour is not None else 1.0)
        first, last = _rows(area, painting.height)
        for row in range(first, last + 1):
            painting.rows.setdefault(row, []).append(len(painting.fills))
        painting.fills.append(Fill(area, srgb(colour) if colour is not None else None, alpha))


def box_paints(painting: Painting, box: Any, state: State) -> None:
    background_paints(painting, box.background, state)
    border_paints(painting, box, state)


def replaced_paints(painting: Painting, box: Any, state: State) -> None:
    """As draw_replacedbox: an image (an inline SVG: any other is refused) over its content box,
    in colours not known."""
    add(painting, state, (box.content_box_x(), box.content_box_y(), box.width, box.height), None)


def text_paints(painting: Painting, box: Any, state: State) -> None:
    """As draw_text: the underline and overline under the glyphs, the line-through over them
    (Pango's font metrics, which the layout keeps for a text with a decoration only)."""
    from weasyprint.layout.percent import percentage

    style = box.style
    if style["visibility"] != "visible":
        return
    lines, layout, size = style["text_decoration_line"], box.pango_layout, style["font_size"]
    colour = style["text_decoration_color"]
    colour = style["color"] if colour == "currentcolor" else colour
    middles: dict[float, float] = {}  # each line's middle from the box's top: its thickness
    if "underline" in lines or "overline" in lines:
        thickness = style["text_decoration_thickness"]
        auto = thickness in ("auto", "from-font")
        thickness = layout.underline_thickness if auto else percentage(thickness, style, size)
        offset = style["text_underline_offset"]
        offset = -layout.underline_position if offset == "auto" else percentage(offset, style, size)
        if "overline" in lines:
            middles[box.baseline - layout.ascent + thickness / 2] = thickness
        if "underline" in lines:
            middles[box.baseline + offset + thickness / 2] = thickness
    for middle, thickness in middles.items():
        add(painting, state, _line(box, middle, thickness), colour)
    painting.text_at[id(box)] = len(painting.fills)
    if "line-through" in lines:
        middle = box.baseline - layout.strikethrough_position
        add(painting, state, _line(box, middle, layout.strikethrough_thickness), colour)


def _line(box: Any, middle: float, thickness: float) -> tuple[float, float, float, float]:
    return box.position_x, box.position_y + middle - thickness / 2, box.width, thickness


def background_paints(painting: Painting, background: Any, state: State) -> None:
    """As draw_background: outset shadows around the box, its colour, its layers from the
    bottom one up (a gradient in each of its colours), its inset shadows over all of it."""
    from weasyprint.images import Gradient

    if background is None or not background.layers:
        return
    style, painting_area = background.style, background.layers[-1].painting_area
    shadows = [(shadow, colour) for *shadow, colour, inset in style["box_shadow"] if not inset]
    for (x, y, blur, spread), colour in reversed(shadows):
        for bx, by, width, height, *_ in background.layers[-1].clipped_boxes:
            grow = spread.value + blur.value
            outer = (bx + x.value - grow, by + y.value - grow, width + 2 * grow, height + 2 * grow)
            for rect in _ring(outer, (bx, by, width, height)):
                add(painting, state, rect, style["color"] if colour == "currentcolor" else colour)
    add(painting, state, painting_area, background.color)
    for layer in reversed(background.layers):
        if layer.image is None or 0 in layer.size:
            continue
        colours = layer.image.colors if isinstance(layer.image, Gradient) else (None,)
        for colour in colours:
            add(painting, state, layer.painting_area, colour)
    for *_, colour, inset in style["box_shadow"]:
        if inset:
            add(painting, state, painting_area, style["color"] if colour == "currentcolor" else colour)


def border_paints(painting: Painting, box: Any, state: State) -> None:
    """As draw_border: the column rules, then the border image or each side's band."""
    from weasyprint.images import Gradient

    style = box.style
    if style["visibility"] != "visible":
        return
    _column_rules(painting, box, state)
    x, y, width, height = box.border_box_x(), box.border_box_y(), box.border_width(), box.border_height()
    if style["border_image_source"][0] != "none" and box.border_image is not None:
        image = box.border_image
        for colour in image.colors if isinstance(image, Gradient) else (None,):
            add(painting, state, (x, y, width, height), colour)
        return
    top, right, bottom, left = (getattr(box, f"border_{side}_width") for side in _SIDES)
    bands = [
        (x, y, width, top),
        (x + width - right, y, right, height),
        (x, y + height - bottom, width, bottom),
    ]
    for side, rect in zip(_SIDES, [*bands, (x, y, left, height)], strict=True):
        colour = style[f"border_{side}_color"]
        if style[f"border_{side}_style"] not in ("none", "hidden"):
            add(painting, state, rect, style["color"] if colour == "currentcolor" else colour)


def _column_rules(painting: Painting, box: Any, state: State) -> None:
    """As draw_column_rules: a rule before each column but the first of each run of them."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.layout.percent import percentage

    style, box_width = box.style, box.width
    columns = style["column_width"] != "auto" or style["column_count"] != "auto"
    if not (isinstance(box, boxes.BlockContainerBox) and columns and style["column_rule_width"]):
        return
    if style["column_rule_style"] in ("none", "hidden"):
        return
    colour = style["color"] if style["column_rule_color"] == "currentcolor" else style["column_rule_color"]
    gap = (
        style["font_size"]
        if style["column_gap"] == "normal"
        else percentage(style["column_gap"], style, box_width)
    )
    width, first = style["column_rule_width"], True
    for child in box.children:
        spans = child.style["column_span"] == "all"
        if not (spans or first):
            add(
                painting,
                state,
                (child.position_x - (width + gap) / 2, child.position_y, width, child.height),
                colour,
            )
        first = spans


def outline_paints(painting: Painting, box: Any, state: State) -> None:
    """As draw_outline: the box's outline, then its descendants' in this stacking context."""
    from weasyprint.formatting_structure import boxes

    style = box.style
    width, offset = style["outline_width"], style["outline_offset"]
    colour = style["color"] if style["outline_color"] == "currentcolor" else style["outline_color"]
    if style["visibility"] == "visible" and width and colour.alpha:
        x, y = box.border_box_x() - offset, box.border_box_y() - offset
        inner = (x, y, box.border_width() + 2 * offset, box.border_height() + 2 * offset)
        outer = (x - width, y - width, inner[2] + 2 * width, inner[3] + 2 * width)
        for rect in _ring(outer, inner):
            add(painting, state, rect, colour)
    for child in getattr(box, "children", ()):
        if isinstance(child, boxes.Box):
            outline_paints(painting, child, state)


def _ring(outer: tuple[float, ...], inner: tuple[float, ...]) -> list[tuple[float, float, float, float]]:
    """The part of the outer rectangle outside the inner one (x, y, width, height each), as up to
    four rectangles: above, below, left and right of the inner one."""
    x1, y1, x2, y2 = outer[0], outer[1], outer[0] + outer[2], outer[1] + outer[3]
    u1, v1 = min(max(inner[0], x1), x2), min(max(inner[1], y1), y2)
    u2, v2 = max(min(inner[0] + inner[2], x2), u1), max(min(inner[1] + inner[3], y2), v1)
    if inner[2] <= 0 or inner[3] <= 0:
        return [(x1, y1, x2 - x1, y2 - y1)]
    return [
        (x1, y1, x2 - x1, v1 - y1),
        (x1, v2, x2 - x1, y2 - v2),
        (x1, v1, u1 - x1, v2 - v1),
        (u2, v1, x2 - u2, v2 - v1),
    ]
