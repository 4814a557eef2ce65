"""The explicit bidi formatting characters (embeddings, overrides, isolates and their ends,
U+202A to U+202E and U+2066 to U+2069), left out of what a customer reads: an email's parts
and a document's values.

The API refuses them in an order's text, but a shop platform's order (what its checkout
took) or a shop's own settings may hold one. An override draws a value backwards (a
product's name, the seller's legal name), and one left open everything written after it in
the same paragraph. No letter is lost: the text is drawn in the order it is stored, as the
Unicode bidirectional algorithm orders it by itself."""

from typing import Any

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_LEFT_OUT = str.maketrans("", "", BIDI_CONTROLS)


def without_bidi_controls(text: str) -> str:
    return text.translate(_LEFT_OUT)


def values_without_bidi_controls(value: Any) -> Any:
    """`value` with each string in it (in dicts and lists, at any depth) without them."""
    if isinstance(value, str):
        return value.translate(_LEFT_OUT)
    if isinstance(value, dict):
        return {key: values_without_bidi_controls(item) for key, item in value.items()}
    if isinstance(value, list):
        return [values_without_bidi_controls(item) for item in value]
    return value
