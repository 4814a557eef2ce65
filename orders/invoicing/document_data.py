"""What an invoice or a credit note shows, frozen at its issue in Invoice.data: the seller and
the customer (parties.py), the lines with their VAT, the totals per rate (vat.py). The issue
(issue.py) stores it; the invoice template's samples (notifications/documents/samples.py) show
the same for the sample order."""

from datetime import datetime
from typing import Any

from django.utils import timezone

from orders.invoicing.parties import buyer_of, seller_of
from orders.invoicing.vat import credited_rates, negated, vat_as_charged, vat_lines, vat_rates
from orders.models import Invoice, Order


def invoice_data(order: Order, content: dict[str, Any], *, now: datetime) -> dict[str, Any]:
    """What an invoice of `content` shows."""
    lines = vat_lines(content)
    rates = vat_as_charged(vat_rates(content, lines), content.get("tax_total"))
    data = _common(order, content, now=now) | {
        "lines": lines,
        "shipping": content.get("shipping"),
        "discounts": content.get("discounts", []),
        "rates": rates,
    }
    return _with_totals(data, order.currency)


def credit_note_data(
    invoice: Invoice, *, amount_minor: int, lines: list[dict[str, Any]], reason: str
) -> dict[str, Any]:
    """What a credit note of `amount_minor` against `invoice` shows: the refunded `lines` (may
    be empty) and its `reason`."""
    rates = credited_rates(invoice.data["rates"], amount_minor)
    data = {
        key: invoice.data[key] for key in ("seller", "buyer", "order_number", "order_date", "payment_method")
    }
    data |= {
        "issued_on": timezone.now().date().isoformat(),
        "corrects": {"number_text": invoice.number_text, "issued_on": invoice.data["issued_on"]},
        "lines": lines,
        "reason": reason,
        "rates": negated(rates),
    }
    return _with_totals(data, invoice.currency)


def _common(order: Order, content: dict[str, Any], *, now: datetime) -> dict[str, Any]:
    return {
        "seller": seller_of(order),
        "buyer": buyer_of(order, content),
        "order_number": order.number or str(order.pk),
        "order_date": timezone.localdate(order.created_at or now).isoformat(),
        "issued_on": timezone.localdate(now).isoformat(),
        "payment_method": content.get("payment_method", ""),
    }


def _with_totals(data: dict[str, Any], currency: str) -> dict[str, Any]:
    rates = data["rates"]
    return data | {
        "total": sum(row["gross"] for row in rates),
        "net_total": sum(row["net"] for row in rates),
        "vat_total": sum(row["vat"] for row in rates),
        "currency": currency,
    }
