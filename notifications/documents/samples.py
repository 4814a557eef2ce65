"""The sample invoice and credit note an invoice template is checked and previewed against: the
sample order's (content/samples.py: two lines at two rates, shipping, a discount) and a
credit note of its refund of the tea, built by the same code as a real one's (never saved)."""

import uuid
from datetime import datetime, timedelta

from django.utils import timezone

from notifications.content.context import sample_order
from notifications.content.samples import SAMPLE_CONTENT, SAMPLE_REFUND
from orders.invoicing.document_data import credit_note_data, invoice_data
from orders.invoicing.issue import number_text
from orders.models import Invoice

SAMPLE_INVOICE_NUMBER = 42  # as the sample order's invoice email says (content/samples.py)
# Each date a day from the next (the order's, the invoice's, the credit note's), so the check
# of what a document must show tells one from another.
A_DAY = timedelta(days=1)


def sample_invoice(locale: str, *, now: datetime | None = None) -> Invoice:
    now = now or timezone.now()
    order = sample_order(locale, placed_at=now - A_DAY)
    return Invoice(
        id=uuid.UUID("5a1e0000-1e0c-4e1c-8000-000000000042"),
        kind=Invoice.Kind.INVOICE,
        number=SAMPLE_INVOICE_NUMBER,
        number_text=number_text(Invoice.Kind.INVOICE, SAMPLE_INVOICE_NUMBER),
        currency=order.currency,
        total_minor=SAMPLE_CONTENT["total"],
        locale=locale,
        data=invoice_data(order, SAMPLE_CONTENT, now=now),
    )


def sample_credit_note(locale: str) -> Invoice:
    """Issued today (credit_note_data's date), against the invoice of the day before."""
    invoice = sample_invoice(locale, now=timezone.now() - A_DAY)
    data = credit_note_data(
        invoice,
        amount_minor=SAMPLE_REFUND["amount_minor"],
        lines=SAMPLE_REFUND["lines"],
        reason=SAMPLE_REFUND["reason"],
    )
    return Invoice(
        id=uuid.UUID("5a1e0000-1e0c-4e1c-8000-000000000043"),
        kind=Invoice.Kind.CREDIT_NOTE,
        number=SAMPLE_INVOICE_NUMBER + 1,
        number_text=number_text(Invoice.Kind.CREDIT_NOTE, SAMPLE_INVOICE_NUMBER + 1),
        currency=invoice.currency,
        total_minor=data["total"],
        locale=locale,
        data=data,
    )


def sample_documents(locale: str) -> list[Invoice]:
    """What a template must render: an invoice and a credit note show different parts."""
    return [sample_invoice(locale), sample_credit_note(locale)]
