"""Which characters of a text a PDF draws in an order forced on them: what page_text.py does not
read. A bidirectional override (U+202D LRO, U+202E RLO) makes Pango, which lays out each of
WeasyPrint's text boxes, draw every character after it in one direction, so `&#x202E;` before
DE999888777 shows 777888999ED while the box's text still holds the value. The other explicit
formatting characters (embeddings U+202A and U+202B, isolates U+2066 to U+2068) draw each
letter and digit in its own direction and only order whole runs, as any right-to-left text is.

The scope of an override follows the Unicode bidirectional algorithm (UAX #9, X1 to X8): until
the PDF (U+202C) that closes it, a PDI (U+2069) that closes an isolate opened before it, or the
end of the paragraph, and not inside an isolate or embedding opened after it. CSS unicode-bidi
(a <bdo>) is not read: WeasyPrint 70 (pinned) parses it and lays out as if it were `normal`."""

import unicodedata

_OVERRIDES = frozenset("\u202d\u202e")  # LRO, RLO
_OPENS = _OVERRIDES | frozenset("\u202a\u202b\u2066\u2067\u2068")  # and LRE RLE LRI RLI FSI
_ISOLATES = frozenset("\u2066\u2067\u2068")
_CLOSE_EMBEDDING, _CLOSE_ISOLATE = "\u202c", "\u2069"  # PDF, PDI
# UAX #9 stops nesting at level 125 and ignores an opening beyond it. Each opening raises the
# level by one or two, so up to this many open ones none is ignored; beyond, where the scopes
# end is not followed: the rest of the paragraph counts as overridden.
_MAX_OPEN = 62


def overridden_replaced(text: str, replacement: str) -> str:
    """`text` with each run of characters an override forces into a direction replaced by one
    `replacement` (the override characters count in it, as they show nothing)."""
    opened: list[str] = []
    too_deep = False
    drawn: list[str] = []
    for char in text:
        if unicodedata.bidirectional(char) == "B":  # a paragraph separator ends every scope
            opened, too_deep = [], False
        elif char in _OPENS:
            opened.append(char)
            too_deep = too_deep or len(opened) > _MAX_OPEN
        elif char == _CLOSE_EMBEDDING and opened and opened[-1] not in _ISOLATES:
            opened.pop()
        elif char == _CLOSE_ISOLATE and _ISOLATES.intersection(opened):
            while opened.pop() not in _ISOLATES:
                pass
        if not too_deep and not (opened and opened[-1] in _OVERRIDES):
            drawn.append(char)
        elif not drawn or drawn[-1] != replacement:
            drawn.append(replacement)
    return "".join(drawn)
