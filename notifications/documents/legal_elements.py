"""What every invoice and credit note must show (Directive 2006/112/EC art. 226), checked in the
text its laid-out pages show (page_text.py): for the samples when a draft is saved or published
(template_check.py), and for every real document rendered from a template written in the admin
(template.py), since `{% if %}` can tell the samples from a real document by their values; and
for every document of the shipped template, on the layout made in the process.

A value in a comment, an attribute, an element no page displays (<title>, `hidden`,
display: none) or one hidden by CSS (white on white, a font of 0 pt, off the page, clipped away)
is not on a page, and counts as left out; so does one the page runs into other letters or
digits (1{{ document.total }} shows another total), or draws backwards (bidi_overrides.py)."""

import re
import unicodedata
from itertools import accumulate
from typing import Any

from notifications.content.errors import RenderError
from notifications.documents.context import document_context
from notifications.documents.page_text import MIN_SHOWN_FONT_SIZE_PT
from notifications.documents.painted_colours import FAINT
from orders.models import Invoice

# What a document must show, each with its values: a value of the document that its pages do not
# show was left out. (Art. 226: the date and number, the parties' names, addresses and
# the seller's VAT number, each line's nature, unit price excluding VAT and rate, the
# discounts, the taxable amount and VAT per rate; a credit note names the invoice it corrects.)
LEGAL_ELEMENTS = {
    "document.number": "its number",
    "document.issued_on": "its date of issue",
    "document.corrects_number": "the invoice a credit note corrects",
    "document.currency": "the currency",
    "seller.legal_name": "the seller's name",
    "seller.legal_address": "the seller's address",
    "seller.vat_number": "the seller's VAT number",
    "buyer.name": "the customer's name",
    "buyer.line1": "the customer's address",
    "buyer.city": "the customer's city",
    "document.lines.name": "each line's name",
    "document.lines.unit_price": "each line's unit price excluding VAT",
    "document.lines.rate": "each line's VAT rate",
    "document.discounts.amount": "each discount",
    "document.rates.rate": "each VAT rate of the totals",
    "document.rates.net": "the net amount per rate",
    "document.rates.vat": "the VAT per rate",
    "document.total": "the total",
}
# Left out of both sides of the comparison: the hyphen WeasyPrint adds where it breaks a word
# across lines (its hyphenate-character, U+2010 unless a template sets another) and the soft
# hyphen where it may; neither is part of a value.
_BREAK_HYPHENS = str.maketrans("", "", "\u2010\u00ad")
# Group and decimal separators of a number, as locales write them (1,159.70; 1.159,70; 1'159.70;
# Arabic's): between digits they make one number of both sides.
_SEPARATORS = frozenset(".,'\u2019\u066b\u066c")
# Spaces narrower than a word space, which typography sets between a number's groups of digits
# (1 159,70: U+202F is CLDR's group separator for French, U+2009 the SI's; U+2006, U+200A): one
# between two digits makes one number of both sides, as a comma does, and is left out as one.
# A word space (U+0020, U+00A0, a figure space) sets them apart: a row's texts, two cells' values,
# are read with one between them.
_DIGIT_GROUP_SPACE = re.compile("(?<=\\d)[\u2006\u2009\u200a\u202f](?=\\d)")


def legal_elements_check(document: Invoice, shown_text: str, label: str, *, sample: bool) -> None:
    """Raise RenderError naming each element of `document` that `shown_text`, the text of its
    laid-out pages (page_text.py), does not show."""
    page_words = _comparable_words(shown_text)
    page = "".join(page_words), {0, *accumulate(len(word) for word in page_words)}
    context = document_context(document)
    missing = []
    for name, words in LEGAL_ELEMENTS.items():
        values = dict.fromkeys(_values(context, name))
        absent = [value for value in values if value and not _shown_apart(comparable_text(value), page)]
        if absent:
            missing.append(f"{words} ({{{{ {name} }}}}: {absent[0]})")
    if missing:
        which = f"the sample {document.number_text}" if sample else document.number_text
        raise RenderError(
            f"The html template of {label} leaves out what {which} must show "
            f"(an EU invoice, Directive 2006/112/EC art. 226): {'; '.join(missing)}. A value counts "
            f"where a page shows it: visible, on the page, at {MIN_SHOWN_FONT_SIZE_PT} pt or more, "
            "in a colour that stands out from what lies under it, in the order it is written (no "
            "bidirectional override, U+202D or U+202E, turning it around), and apart from other "
            "letters and digits (1{{ document.total }} shows another total)."
        )


def comparable_text(text: str) -> str:
    """`text` as the check compares it, so that a value counts however a page sets it: in
    compatibility forms folded (text-transform: full-width) and case folded (uppercase), without
    spaces (a value broken across lines or pages, wherever they break), break hyphens or
    invisible formatting characters (a zero-width space, a joiner, a bidi mark), which show
    nothing between the letters either side; without a narrow space between two digits
    (_DIGIT_GROUP_SPACE), which groups them."""
    return "".join(_comparable_words(text))


def _comparable_words(text: str) -> list[str]:
    """comparable_text's words: the runs of `text` between its spaces and line breaks."""
    grouped = _DIGIT_GROUP_SPACE.sub("", text)  # before NFKC takes a U+202F for a space
    folded = unicodedata.normalize("NFKC", grouped).casefold().translate(_BREAK_HYPHENS)
    return "".join(char for char in folded if unicodedata.category(char) != "Cf").split()


def _shown_apart(value: str, page: tuple[str, set[int]]) -> bool:
    """Whether `value` (comparable_text's) is in the page's text (comparable_text's), whose
    words start at the offsets given with it, and apart: with a space, the end of a text or a
    character that is neither a letter, a digit nor a mark at each end. Run into another letter
    or digit (1€59.70, DE9998887770), the page shows another word than the value."""
    text, spaces = page
    found = text.find(value)
    while found >= 0 and value:
        end = found + len(value)
        starts = found in spaces or not (_joins(text[found - 1]) or _in_number(text, found, value))
        if starts and (end in spaces or not _joins(text[end])):
            return True
        found = text.find(value, found + 1)
    return not value


def _in_number(text: str, found: int, value: str) -> bool:
    """Whether a value starting with a digit follows a digit and a group or decimal separator
    with no space (1.19 %, 1,159.70): the page shows another number, the value its tail."""
    return value[0].isdigit() and found >= 2 and text[found - 1] in _SEPARATORS and text[found - 2].isdigit()


def _joins(char: str) -> bool:
    """A letter, a digit or a mark (a combining accent), or a faint text's character (a pale
    digit, painted_colours.py): read as one word with what it touches."""
    return char.isalnum() or unicodedata.category(char).startswith("M") or char == FAINT


def _values(context: dict[str, Any], name: str) -> list[str]:
    """The values at a dotted name; a list's name and an item's field ("document.lines.name")
    gives that field of each item."""
    found: list[Any] = [context]
    for key in name.split("."):
        found = [item for value in found for item in (value if isinstance(value, list) else [value])]
        found = [value[key] for value in found]
    return [str(value) for value in found]
