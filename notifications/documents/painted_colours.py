"""The colours that lie under a text and over it, and whether it stands out from them: what
page_text.py asks of a text's colour. Under it lie its ancestors' backgrounds and border images
(followed down the box tree as page_text.py reads it) and whatever else WeasyPrint paints before
it where its glyphs are (paint_order.py); over it, what is painted after it there. A text counts
as shown when its colour reaches MIN_SHOWN_CONTRAST against every colour that may lie under it,
and still does with each fill painted over it laid on both. One that does not is still seen
where its colour may reach MIN_SEEN_CONTRAST against one of them, with what is painted over it:
it shows no value, but a reader sees it, and reads a digit of it into a value it is set against.

A fill counts where it meets a part of the glyphs' band wider and taller than COVER_SHARE of
their capitals' height: a table's rule, a thin column rule or an underline beside the glyphs
stays short of it, a box, a thick border or a bar laid onto them does not."""

from __future__ import annotations

import unicodedata
from enum import Enum
from typing import Any

from notifications.documents.contrast import RGB, WHITE, contrast_ratio, over, srgb
from notifications.documents.page_areas import Area, intersection, within
from notifications.documents.painted_boxes import Fill, Painting

# The WCAG contrast ratio (1, the same colour, to 21, black on white) of the text against what
# lies under it: light grey (#ccc) on white is 1.6 and still read; hidden text is 1 to 1.1.
MIN_SHOWN_CONTRAST = 1.5
# Below MIN_SHOWN_CONTRAST a text shows no value, but a reader may still see it, and read a pale
# digit against a value into it (DE123456789 and a #d5d5d5 0, 1.47, read DE1234567890): it
# counts as unseen, and sets the texts either side apart, only below this. 1.02 on white is a
# Weber contrast of 2 % (#fdfdfd and paler: 3 levels of 255 from white), the least at which
# normal vision makes out letters at all (the Pelli-Robson chart's large letters, 1 to 2 %;
# smaller ones need more): no reader sees a text below it, while a reader who looks may see one
# above it (a screen zoomed in shows a #fafafa 0 on white). Erring low costs a near-white text
# set against a value a refusal; erring high would let a digit a reader sees run into it unread.
MIN_SEEN_CONTRAST = 1.02
# A quarter of a capital's height: a 1 px rule meets 16 px glyphs on less than half of it, and
# a bar that hides a quarter of every glyph, or a glyph, is more.
COVER_SHARE = 0.25
# A faint text's characters but its spaces, as page_text.py reads them (SUBSTITUTE, standing for
# characters not read): a control character, which no value holds (the API refuses them), as no
# value holds page_text.py's UNSHOWN; legal_elements.py reads it as a letter, joined to the
# letters beside it.
FAINT = "\x1a"
# More colours than this under one text (nested translucent gradients) are not followed: the
# text shows no value, which bounds the work a template can ask of the check.
MAX_BACKDROPS = 32


class Seen(Enum):
    """What a reader makes of a text's colour: SHOWN, it shows what it says (a value counts);
    FAINT, too pale to count, but seen (read as FAINT, as a letter no value holds); HIDDEN,
    seen by no one (read as page_text.py's UNSHOWN, as text not shown, which sets apart)."""

    SHOWN = "shown"
    FAINT = "faint"
    HIDDEN = "hidden"


def faint_read(text: str) -> str:
    """A faint text as read: FAINT for each character but its spaces and invisible formatting
    characters (a zero-width space), which stay as they are."""
    return "".join(char if char.isspace() or unicodedata.category(char) == "Cf" else FAINT for char in text)


def colour_seen(
    painting: Painting, box: Any, glyphs: Area, cap_height: float, alpha: float, ancestors: frozenset[RGB]
) -> Seen:
    """How the text box, its glyphs' band on the page `glyphs` (capitals `cap_height` tall
    there), in its colour as transparent as `alpha`, stands out from what lies under it
    (`ancestors`, its ancestors' backgrounds', and the fills painted before it) and from the
    fills painted after it, laid on both: SHOWN, FAINT or HIDDEN (Seen)."""
    at = painting.text_at.get(id(box))
    if at is None:
        return Seen.HIDDEN  # WeasyPrint does not paint it
    least = COVER_SHARE * cap_height
    meeting = [index for index in painting.meeting(glyphs) if _meets(painting.fills[index], glyphs, least)]
    under = _under([painting.fills[index] for index in meeting if index < at], glyphs)
    if under is None:
        return Seen.FAINT  # colours under it not known: it may show, so it may run into a value
    colour = srgb(box.style["color"])
    pairs = {(over(colour, alpha, below), below) for below in under | ancestors}
    over_it = [painting.fills[index] for index in meeting if index >= at]
    if _shown(pairs, over_it):
        return Seen.SHOWN
    return Seen.FAINT if _seen(pairs, over_it, glyphs) else Seen.HIDDEN


def _shown(pairs: set[tuple[RGB, RGB]], over_it: list[Fill]) -> bool:
    """Whether every pair of the text's colour and the colour under it keeps MIN_SHOWN_CONTRAST,
    and still does with each fill painted over them laid on both."""
    for fill in [None, *over_it]:
        if fill is not None:
            if fill.colour is None:
                return False
            pairs = _laid(fill.colour, fill.alpha, pairs)
        if min(contrast_ratio(text, below) for text, below in pairs) < MIN_SHOWN_CONTRAST:
            return False
    return True


def _seen(pairs: set[tuple[RGB, RGB]], over_it: list[Fill], glyphs: Area) -> bool:
    """Whether some part of the text may keep MIN_SEEN_CONTRAST with what lies under it: a fill
    painted over all of its glyphs is laid on every pair, one over a part of them on a copy of
    each (the part it leaves shows as before); an image over it may leave it seen."""
    for fill in over_it:
        if fill.colour is None:
            return True
        covered = _laid(fill.colour, fill.alpha, pairs)
        pairs = covered if within(glyphs, fill.area) else pairs | covered
        if len(pairs) > MAX_BACKDROPS:
            return True  # too many to follow: it may be seen
    return max(contrast_ratio(text, below) for text, below in pairs) >= MIN_SEEN_CONTRAST


def _laid(colour: RGB, alpha: float, pairs: set[tuple[RGB, RGB]]) -> set[tuple[RGB, RGB]]:
    """Each pair of a text's colour and the colour under it with `colour` painted over both."""
    return {(over(colour, alpha, text), over(colour, alpha, below)) for text, below in pairs}


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
