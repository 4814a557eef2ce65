"""What every invoice and credit note must show (Directive 2006/112/EC art. 226), checked in its
HTML's text before it is laid out: for the samples when a draft is saved or published
(template_check.py), and for every real document rendered from a template written in the admin
(template.py), since `{% if %}` can tell the samples from a real document by their values.

The text is what a page can show: outside tags and their attributes, comments and the elements
WeasyPrint never displays (<title>, <style>, <template>, `hidden`, ...). A value hidden by CSS
(white on white, display: none) is still found: this is a check against leaving one out, not
against hiding it."""

from html.parser import HTMLParser
from typing import Any

from notifications.content.errors import RenderError
from notifications.documents.context import document_context
from orders.models import Invoice

# What a document must show, each with its values: a value of the document that is not in the
# rendered text was left out. (Art. 226: the date and number, the parties' names, addresses and
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
# The elements whose text WeasyPrint's own stylesheet never shows (its html5_ua.css: display:
# none), with any element given the `hidden` attribute; the void ones hold no text.
_UNSHOWN_ELEMENTS = frozenset(
    {"title", "style", "script", "template", "noembed", "noframes", "rp", "datalist"}
)
_VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


def legal_elements_check(document: Invoice, html: str, label: str, *, sample: bool) -> None:
    """Raise RenderError naming each element of `document` its rendered `html` leaves out."""
    text = shown_text(html)
    context = document_context(document)
    missing = []
    for name, words in LEGAL_ELEMENTS.items():
        absent = [value for value in dict.fromkeys(_values(context, name)) if value and value not in text]
        if absent:
            missing.append(f"{words} ({{{{ {name} }}}}: {absent[0]})")
    if missing:
        which = f"the sample {document.number_text}" if sample else document.number_text
        raise RenderError(
            f"The html template of {label} leaves out what {which} must show "
            f"(an EU invoice, Directive 2006/112/EC art. 226): {'; '.join(missing)}."
        )


def shown_text(html: str) -> str:
    """The HTML's text a page may show, its character references read; its parts joined by a
    NUL, which no value holds, so that no value is found across two elements."""
    parser = _ShownText()
    parser.feed(html)
    parser.close()
    return "\0".join(parser.parts)


class _ShownText(HTMLParser):
    """The open elements as a stack, each with whether its text is shown; an end tag closes the
    innermost open element of its name (HTML's implied ends are not modelled: in doubt, a text
    counts as unshown, and the check refuses rather than lets one through)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._open: list[tuple[str, bool]] = []  # (tag, its text is unshown)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID_ELEMENTS:
            return
        unshown = tag in _UNSHOWN_ELEMENTS or any(name == "hidden" for name, _ in attrs)
        self._open.append((tag, unshown or (bool(self._open) and self._open[-1][1])))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <x/>: nothing inside it

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, -1, -1):
            if self._open[depth][0] == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        if not (self._open and self._open[-1][1]):
            self.parts.append(data)


def _values(context: dict[str, Any], name: str) -> list[str]:
    """The values at a dotted name; a list's name and an item's field ("document.lines.name")
    gives that field of each item."""
    found: list[Any] = [context]
    for key in name.split("."):
        found = [item for value in found for item in (value if isinstance(value, list) else [value])]
        found = [value[key] for value in found]
    return [str(value) for value in found]
