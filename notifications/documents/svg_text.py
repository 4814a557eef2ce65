"""Text an inline SVG image draws, which the check of a document's legal elements cannot read:
page_text.py reads the text of the page's boxes, and an <svg> is one replaced box whose drawing
WeasyPrint makes when it paints (svg/), letter by letter at the places its attributes give
(x, dx, rotate, a textPath's curve, a <use> of a <text> in <defs>, a pattern or a marker holding
one), through its own transforms, clips, masks and fills. Reading that text where it lands
would mean following every one of those, so a layout names it instead, and the check refuses
the template (template.py): a digit an SVG draws against a value (DE123456789, then an SVG
drawing 0) would otherwise go unread. An SVG of shapes alone, a logo, passes; an SVG by address
(<img src>, a background, a data: address) is never fetched (layout.py).

Read from the document's element tree as WeasyPrint parsed it, in the process that lays out:
every <svg> element WeasyPrint draws as an image, and in it every element it draws as text
(its svg.TAGS: <text>, <tspan>, <textPath> and <a>, whatever their namespace, as WeasyPrint
ignores it) that holds more than spaces."""

from __future__ import annotations

from typing import Any

_SVG_ROOT = "{http://www.w3.org/2000/svg}svg"  # the element WeasyPrint's html.py draws as an image
# Shown of each text in the refusal: enough to find it in the template.
_SHOWN_CHARS = 40


def svg_drawn_texts(root: Any) -> tuple[str, ...]:
    """The texts the inline SVG images under `root` (an ElementTree element) draw, each one's
    words joined by single spaces and cut at _SHOWN_CHARS, in the document's order; one for each
    element drawn as text, so a <tspan> in a <text> is named with it and again alone."""
    from weasyprint.svg import TAGS
    from weasyprint.svg.text import text as drawn_as_text

    text_tags = {tag for tag, draw in TAGS.items() if draw is drawn_as_text}
    drawing: dict[int, Any] = {}  # in order, each once (an <svg> inside another is met twice)
    for svg in root.iter(_SVG_ROOT):
        for element in svg.iter():
            if isinstance(element.tag, str) and element.tag.split("}", 1)[-1] in text_tags:
                drawing.setdefault(id(element), element)
    texts = (" ".join("".join(element.itertext()).split()) for element in drawing.values())
    return tuple(text[:_SHOWN_CHARS] for text in texts if text)
