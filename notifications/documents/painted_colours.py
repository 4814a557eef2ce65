"""The colours that lie under a text and over it, and whether it stands out from them: what
page_text.py asks of a text's colour. Under it lie its ancestors' backgrounds and border images
(followed down the box tree as page_text.py reads it) and whatever else WeasyPrint paints before
it where its glyphs are (paint_order.py); over it, what is painted after it there. A text counts
as shown when its colour reaches MIN_SHOWN_CONTRAST against every colour that may lie under it,
and still does with each fill painted over it laid on both.

A fill counts where it meets a part of the glyphs' band wider and taller than COVER_SHARE of
their capitals' height: a table's rule, a thin column rule or an underline beside the glyphs
stays short of it, a box, a thick border or a bar laid onto them does not."""

from __future__ import annotations

from typing import Any

from notifications.documents.contrast import RGB, WHITE, contrast_ratio, over, srgb
from notifications.documents.page_areas import Area, intersection, within
from notifications.documents.painted_boxes import Fill, Painting

# The WCAG contrast ratio (1, the same colour, to 21, black on white) of the text against what
# lies under it: light grey (#ccc) on white is 1.6 and still read; hidden text is 1 to 1.1.
MIN_SHOWN_CONTRAST = 1.5
# A quarter of a capital's height: a 1 px rule meets 16 px glyphs on less than half of it, and
# a bar that hides a quarter of every glyph, or a glyph, is more.
COVER_SHARE = 0.25
# More colours than this under one text (nested translucent gradients) are not followed: the
# text counts as hidden, which bounds the work a template can ask of the check.
MAX_BACKDROPS = 32


def shown_among_fills(
    painting: Painting, box: Any, glyphs: Area, cap_height: float, alpha: float, ancestors: frozenset[RGB]
) -> bool:
    """Whether the text box, its glyphs' band on the page `glyphs` (capitals `cap_height` tall
    there), in its colour as transparent as `alpha`, stands out from every colour under it
    (`ancestors`, its ancestors' backgrounds', and the fills painted before it), and still does
    with the fills painted after it laid on both."""
    at = painting.text_at.get(id(box))
    if at is None:
        return False  # WeasyPrint does not paint it
    least = COVER_SHARE * cap_height
    meeting = [index for index in painting.meeting(glyphs) if _meets(painting.fills[index], glyphs, least)]
    under = _under([painting.fills[index] for index in meeting if index < at], glyphs)
    if under is None:
        return False
    colour = srgb(box.style["color"])
    pairs = {(over(colour, alpha, below), below) for below in under | ancestors}
    for fill in [None, *(painting.fills[index] for index in meeting if index >= at)]:
        if fill is not None:
            if fill.colour is None:
                return False
            pairs = {
                (over(fill.colour, fill.alpha, text), over(fill.colour, fill.alpha, below))
                for text, below in pairs
            }
        if min(contrast_ratio(text, below) for text, below in pairs) < MIN_SHOWN_CONTRAST:
            return False
    return True


def _meets(fill: Fill, glyphs: Area, least: float) -> bool:
    x1, y1, x2, y2 = intersection(fill.area, glyphs)
    return x2 - x1 > least and y2 - y1 > least


def _under(fills: list[Fill], glyphs: Area) -> frozenset[RGB] | None:
    """The colours the fills, in paint order, may leave under the glyphs: one that covers all
    of them opaquely replaces the colours before it, another adds to them. None where a fill's
    colours are not known or too many colours are."""
    found = {WHITE}
    for fill in fills:
        if fill.colour is None:
            return None
        painted = {over(fill.colour, fill.alpha, below) for below in found}
        found = painted if fill.alpha >= 1 and within(glyphs, fill.area) else found | painted
        if len(found) > MAX_BACKDROPS:
            return None
    return frozenset(found)


def backdrops_under(below: frozenset[RGB], background: Any) -> frozenset[RGB] | None:
    """The colours that may lie under a box's content once its background (WeasyPrint's laid-out
    one, None where nothing is painted) is: its colour over each of `below`, then each of its
    gradients' stops and inset shadows' colours over those, as any of them may cover the text.
    None where an image of colours not known is painted, or too many colours are."""
    if background is None:
        return below
    from weasyprint.images import Gradient  # after the return above, taken by most boxes

    found = {over(srgb(background.color), background.color.alpha, colour) for colour in below}
    layers: list[Any] = []
    for layer in background.layers:
        if layer.image is not None and not isinstance(layer.image, Gradient):
            return None
        layers += layer.image.colors if layer.image is not None else ()
    shadows = [colour for *_, colour, inset in background.style["box_shadow"] if inset]
    layers += [background.style["color"] if colour == "currentcolor" else colour for colour in shadows]
    found |= {over(srgb(layer), layer.alpha, colour) for layer in layers for colour in found}
    return frozenset(found) if len(found) <= MAX_BACKDROPS else None


def border_image_backdrops(below: frozenset[RGB], image: Any) -> frozenset[RGB] | None:
    """A border image is painted under the box's content, over all of it with `fill` or a
    border-image-width reaching in: its gradient's colours over each of `below`, as they may lie
    under the text. None for an image of colours not known."""
    from weasyprint.images import Gradient

    if image is None:
        return below  # not loaded (an address, refused): nothing painted
    if not isinstance(image, Gradient):
        return None
    found = below | {over(srgb(colour), colour.alpha, under) for colour in image.colors for under in below}
    return frozenset(found) if len(found) <= MAX_BACKDROPS else None
