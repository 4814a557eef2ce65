"""What every invoice and credit note must show (Directive 2006/112/EC art. 226), checked in the
text its laid-out pages show (page_text.py): for the samples when a draft is saved or published
(template_check.py), and for every real document rendered from a template written in the admin
(template.py), since `{% if %}` can tell the samples from a real document by their values; and
for every document of the shipped template, on the layout made in the process.

A value in a comment, an attribute, an element no page displays (<title>, `hidden`,
display: none) or one hidden by CSS (white on white, a font of 0 pt, off the page, clipped away)
is not on a page, and counts as left out; so does one the page runs into other letters or
digits (1{{ document.total }} shows another total), splits into two words, or draws backwards
(bidi_overrides.py); and one it shows apart once but runs into a number elsewhere
(value_places.py)."""

from typing import Any

from notifications.content.errors import RenderError
from notifications.documents.context import document_context
from notifications.documents.shown_boxes import MIN_SHOWN_FONT_SIZE_PT
from notifications.documents.value_places import Others, comparable_words, value_shown, written_text
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


def legal_elements_check(
    document: Invoice, shown_text: str, label: str, *, sample: bool, template: str = ""
) -> None:
    """Raise RenderError naming each element of `document` that `shown_text`, the text of its
    laid-out pages (page_text.py), does not show, rendered from the HTML `template` (whose own
    numbers a value may lie within: value_places.py; none given, none)."""
    page = comparable_words(shown_text)
    context = document_context(document)
    others = Others(
        {words.text: words for words in map(comparable_words, _leaves(context))}.values(),
        written_text(template),
    )
    missing = []
    for name, words in LEGAL_ELEMENTS.items():
        values = dict.fromkeys(_values(context, name))
        absent = [value for value in values if not value_shown(value, page, others)]
        if absent:
            missing.append(f"{words} ({{{{ {name} }}}}: {absent[0]})")
    if missing:
        which = f"the sample {document.number_text}" if sample else document.number_text
        raise RenderError(
            f"The html template of {label} leaves out what {which} must show "
            f"(an EU invoice, Directive 2006/112/EC art. 226): {'; '.join(missing)}. A value counts "
            f"where a page shows it: visible, on the page, at {MIN_SHOWN_FONT_SIZE_PT} pt or more, "
            "in a colour that stands out from what lies under it, in the order it is written (no "
            "bidirectional override, U+202D or U+202E, turning it around), whole (no gap drawn "
            "inside it), and apart from other letters and digits, a digit a word space from it "
            "included, wherever the page shows it (1{{ document.total }} shows another total)."
        )


def _leaves(value: Any) -> list[str]:
    """Every value of the document's context, as text, in its lists and dicts."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [str(value)]


def _values(context: dict[str, Any], name: str) -> list[str]:
    """The values at a dotted name; a list's name and an item's field ("document.lines.name")
    gives that field of each item."""
    found: list[Any] = [context]
    for key in name.split("."):
        found = [item for value in found for item in (value if isinstance(value, list) else [value])]
        found = [value[key] for value in found]
    return [str(value) for value in found]
