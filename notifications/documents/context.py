"""The values the invoice template sees: an invoice's or a credit note's frozen data
(Invoice.data), every amount formatted for its language. Plain strings, numbers and dicts only,
never a model instance: a template written in the admin can then reach nothing but what is
listed here (not the order, its customer's other data, another document or the settings)."""

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from notifications.content.bidi_controls import values_without_bidi_controls
from notifications.content.formatting import money_format
from orders.content import minor_to_amount
from orders.models import Invoice

# Documented for people writing the invoice template (docs/orders.md); a test keeps it in step
# with the values document_context gives.
DOCUMENT_CONTEXT_VARIABLES = {
    "document.credit_note": "true for a credit note, false for an invoice (`{% if document.credit_note %}`)",
    "document.number": "its number as printed, with its prefix (INV-000001, CN-000002)",
    "document.issued_on": "its date of issue (2026-12-01)",
    "document.currency": "the currency's code (EUR)",
    "document.locale": "its language code (en, ru)",
    "document.order_number": "the order's number: the shop's own, else the order's id",
    "document.order_date": "the day the order was placed (2026-12-01)",
    "document.payment_method": "how the customer pays, as the shop said it, or empty",
    "document.reason": "a credit note's reason (its refund's), or empty",
    "document.corrects_number": "a credit note: the number of the invoice it corrects; empty for an invoice",
    "document.corrects_issued_on": "a credit note: that invoice's date of issue; empty for an invoice",
    "document.lines": "each line billed, with `name`, `sku` (empty when the shop gave none), `quantity`, "
    "`unit_price` (excluding VAT), `rate` (19 %), `net`, `vat` and `total`, amounts formatted; empty for "
    "a credit note",
    "document.refunded_lines": "a credit note: the lines returned or refunded, each with `name`, `sku` and "
    "`quantity`; may be empty",
    "document.shipping_method": "how it is delivered, or empty",
    "document.shipping_price": "what delivery costs, formatted, or empty when the invoice bills none",
    "document.discounts": "each discount, with `code` and `amount` (formatted, without a sign)",
    "document.rates": "per VAT rate: `rate` (19 %), `net`, `vat` and `gross`, formatted (negative in a "
    "credit note)",
    "document.net_total": "the net amounts added up, formatted",
    "document.vat_total": "the VAT added up, formatted",
    "document.total": "the total, formatted",
    "seller.legal_name": "who sells, as registered",
    "seller.legal_address": "the seller's address",
    "seller.vat_number": "the seller's VAT number",
    "seller.register": "the seller's register entry, or empty",
    "seller.support_email": "where customers write with questions",
    "buyer.name": "the customer's name (the billing address's, else the order's)",
    "buyer.company": "the customer's company, or empty",
    "buyer.email": "the customer's address",
    "buyer.line1": "the billing address's first line (the delivery address when the order has no "
    "billing address)",
    "buyer.line2": "its second line, or empty",
    "buyer.postal_code": "its postal code",
    "buyer.city": "its city",
    "buyer.region": "its region, or empty",
    "buyer.country": "its country's code (DE)",
}
_SELLER_FIELDS = ("legal_name", "legal_address", "vat_number", "register", "support_email")
_ADDRESS_FIELDS = ("line1", "line2", "postal_code", "city", "region", "country")
Money = Callable[[int], str]  # minor units -> the amount formatted for the document


def document_context(invoice: Invoice) -> dict[str, Any]:
    """The document's values, as its template sees them (DOCUMENT_CONTEXT_VARIABLES), without
    bidi formatting characters (notifications/content/bidi_controls.py): one left open would
    also turn what the template writes after it, which the check of the legal elements
    refuses (bidi_overrides.py)."""
    return values_without_bidi_controls(_context(invoice))


def _context(invoice: Invoice) -> dict[str, Any]:
    data, money = invoice.data, _money_of(invoice)
    shipping = data.get("shipping") or {}
    corrects = data.get("corrects") or {}
    buyer = data["buyer"]
    return {
        "document": {
            "credit_note": invoice.kind == Invoice.Kind.CREDIT_NOTE,
            "number": invoice.number_text,
            "issued_on": data["issued_on"],
            "currency": invoice.currency,
            "locale": invoice.locale,
            "order_number": data["order_number"],
            "order_date": data["order_date"],
            "payment_method": data.get("payment_method") or "",
            "reason": data.get("reason") or "",
            "corrects_number": corrects.get("number_text", ""),
            "corrects_issued_on": corrects.get("issued_on", ""),
            "lines": [_line(line, money) for line in data.get("lines", []) if "net" in line],
            "refunded_lines": [_refunded(line) for line in data.get("lines", []) if "net" not in line],
            "shipping_method": shipping.get("method", "") if shipping else "",
            "shipping_price": money(shipping["price"]) if shipping else "",
            "discounts": [
                {"code": d.get("code") or "", "amount": money(d["amount"])} for d in data.get("discounts", [])
            ],
            "rates": [_rate(row, money) for row in data["rates"]],
            "net_total": money(data["net_total"]),
            "vat_total": money(data["vat_total"]),
            "total": money(data["total"]),
        },
        "seller": {field: str(data["seller"].get(field) or "") for field in _SELLER_FIELDS},
        "buyer": {
            "name": buyer.get("name") or "",
            "company": buyer.get("company") or "",
            "email": buyer.get("email") or "",
            **{field: str(buyer["address"].get(field) or "") for field in _ADDRESS_FIELDS},
        },
    }


def _money_of(invoice: Invoice) -> Money:
    def money(minor: int) -> str:
        return money_format(minor_to_amount(minor, invoice.currency), invoice.currency, invoice.locale)

    return money


def _rate_shown(text: str) -> str:
    return f"{(Decimal(text) * 100).normalize():f} %"


def _line(line: dict[str, Any], money: Money) -> dict[str, Any]:
    return {
        "name": line["name"],
        # a platform's line id stands in for a missing SKU: no SKU a customer could quote
        "sku": "" if line.get("sku_is_line_id") else line.get("sku") or "",
        "quantity": line["quantity"],
        "unit_price": money(line.get("unit_net", line["unit_price"])),
        "rate": _rate_shown(line["tax_rate"]),
        "net": money(line["net"]),
        "vat": money(line["vat"]),
        "total": money(line["total"]),
    }


def _refunded(line: dict[str, Any]) -> dict[str, Any]:
    return {"name": line["name"], "sku": line.get("sku") or "", "quantity": line["quantity"]}


def _rate(row: dict[str, Any], money: Money) -> dict[str, Any]:
    return {
        "rate": _rate_shown(row["rate"]),
        "net": money(row["net"]),
        "vat": money(row["vat"]),
        "gross": money(row["gross"]),
    }
