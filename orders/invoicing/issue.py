"""Issuing an invoice or a credit note, in the caller's transaction: its number (numbering.py)
and everything it shows, frozen at that moment; the PDF is rendered later, once, from that
(documents/). An invoice is issued when the order is paid in full, or when it is placed if
INVOICE_ISSUED_WHEN says "confirmed"; each refund after it gets a credit note, and so does the
cancellation of an order that did not take all it was billed (settlement.py)."""

from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from django.conf import settings
from django.utils import timezone

from messaging.outbox import event_record
from orders.currencies import amount_minor
from orders.events import ORDER_INVOICED
from orders.invoicing.document_data import credit_note_data, invoice_data
from orders.invoicing.numbering import number_take, series_of
from orders.invoicing.settlement import to_credit
from orders.models import Invoice, Order, Refund
from orders.selectors import order_content

PAID, CONFIRMED, OFF = "paid", "confirmed", "off"  # INVOICE_ISSUED_WHEN
# The emails that carry the documents (Notification.Kind values; notifications/ is a layer
# above, tests/unit/test_invoice_vat.py checks they are its kinds).
CONFIRMATION_EMAIL = "order_confirmation"
REFUND_EMAIL, CANCELLATION_EMAIL, EDIT_EMAIL = "order_refund", "order_cancellation", "order_edit"
INVOICE_EMAIL = "order_invoice"  # an invoice issued after the confirmation
NUMBER_DIGITS = 6  # a number as printed: the prefix, then at least this many digits


def invoice_due(*, placed: bool, paid: bool) -> bool:
    """Whether the order's invoice is issued now: at its placing or its payment."""
    when = settings.INVOICE_ISSUED_WHEN
    return (when == CONFIRMED and placed) or (when == PAID and paid)


def invoice_due_at_payment_if_none() -> bool:
    """Whether a payment issues the invoice of an order that has none: under `paid`, and under
    `confirmed` too, where the placing issues it, for an order placed while it did not (before
    a change from `paid` or `off`): a paid order is never left without its invoice."""
    return settings.INVOICE_ISSUED_WHEN != OFF


def invoice_issue(
    order: Order,
    *,
    content: dict[str, Any],
    version_number: int,
    email_kind: str = "",
    email_subject_id: UUID | None = None,
    now: datetime | None = None,
    id: UUID | None = None,
) -> Invoice:
    """The invoice of the order's content version `version_number`, carried by the email
    `email_kind` (blank: none; served by the API and the admin)."""
    return _store(
        order,
        Invoice.Kind.INVOICE,
        invoice_data(order, content, now=now or timezone.now()),
        version_number=version_number,
        email_kind=email_kind,
        email_subject_id=email_subject_id,
        **({"id": id} if id is not None else {}),
    )


def credit_note_issue(
    invoice: Invoice,
    *,
    amount_minor: int,
    refund: Refund | None = None,
    email_kind: str = "",
    email_subject_id: UUID | None = None,
) -> Invoice:
    """A credit note of `amount_minor` (gross, > 0) against `invoice`: shared among its rates
    in proportion to their gross amounts, each rate's net and VAT negative."""
    order = invoice.order
    left = invoice_left(invoice)
    if not 0 < amount_minor <= left:
        # a number of the series is never spent on a document that cannot stand
        raise ValueError(
            f"A credit note's amount must be more than 0 and at most what is left of invoice "
            f"{invoice.number_text} ({left} minor units): {amount_minor}."
        )
    data = credit_note_data(
        invoice,
        amount_minor=amount_minor,
        lines=refund.lines if refund is not None else [],
        reason=refund.reason if refund is not None else "",
    )
    return _store(
        order,
        Invoice.Kind.CREDIT_NOTE,
        data,
        version_number=invoice.version_number,
        corrects=invoice,
        refund=refund,
        email_kind=email_kind,
        email_subject_id=email_subject_id,
    )


def number_text(kind: str, number: int) -> str:
    """A document's number as printed: its kind's prefix, then the number's digits."""
    prefix = (
        settings.INVOICE_NUMBER_PREFIX if kind == Invoice.Kind.INVOICE else settings.CREDIT_NOTE_NUMBER_PREFIX
    )
    return f"{prefix}{number:0{NUMBER_DIGITS}d}"


def _store(order: Order, kind: str, data: dict[str, Any], **fields: Any) -> Invoice:
    series = series_of(order)
    number = number_take(series)
    return Invoice.objects.create(
        order=order,
        kind=kind,
        series=series,
        number=number,
        number_text=number_text(kind, number),
        issued_at=timezone.now(),
        currency=order.currency,
        total_minor=data["total"],
        locale=order.locale,
        data=data,
        **fields,
    )


def invoice_issue_at_placing(order: Order, *, content: dict[str, Any] | None, paid: bool) -> Invoice | None:
    """The invoice of an order being placed, in its transaction (its number with it: gapless),
    if INVOICE_ISSUED_WHEN calls for one now (under `paid`, for an order placed paid in full);
    its confirmation carries it. None for an order placed with the short body: it has no lines
    to invoice."""
    if content is None or not invoice_due(placed=True, paid=paid and paid_in_full(order)):
        return None
    return invoice_issue(order, content=content, version_number=1, email_kind=CONFIRMATION_EMAIL)


def invoice_issue_at_payment(order: Order) -> Invoice | None:
    """The invoice of an order paid after its placing, in the payment's transaction, if it has
    none yet and invoices are on (invoice_due_at_payment_if_none): of its current content, in
    an email of its own (`order.invoiced`), with a credit note of what refunds made before gave
    back (an order paid in part may be refunded before its balance comes in). None for a
    short-body order (no lines to invoice); under `paid`, for an order paid in part: its invoice
    waits for the payment that completes it."""
    if order.content_version is None or not invoice_due_at_payment_if_none():
        return None
    if settings.INVOICE_ISSUED_WHEN == PAID and not paid_in_full(order):
        return None
    if order.erased_at is not None:
        # its lines lost their names and rates with the customer's data: nothing to bill by
        return None
    if Invoice.objects.filter(order=order, kind=Invoice.Kind.INVOICE).exists():
        return None
    content = order_content(order)
    if content is None:
        return None
    invoice_id = uuid4()  # the email is about the invoice
    invoice = invoice_issue(
        order,
        content=content,
        version_number=order.content_version,
        email_kind=INVOICE_EMAIL,
        email_subject_id=invoice_id,
        id=invoice_id,
    )
    event_record(event_type=ORDER_INVOICED, aggregate_id=invoice.id)
    paid = amount_minor(order.amount, order.currency) if order.paid_minor is None else order.paid_minor
    refunded = min(to_credit(order, paid_minor=paid), invoice.total_minor)
    if refunded > 0:
        credit_note_issue(
            invoice, amount_minor=refunded, email_kind=INVOICE_EMAIL, email_subject_id=invoice_id
        )
    return invoice


def paid_in_full(order: Order) -> bool:
    """Whether what the order's payment took covers its total (one paid before what it took was
    kept took its total)."""
    return order.paid_minor is None or order.paid_minor >= amount_minor(order.amount, order.currency)


def credit_note_for_cancellation(order: Order, *, paid_minor: int) -> Invoice | None:
    """The cancellation of an invoiced order, in its transaction, before the refunds told with
    it: a credit note of what its documents bill beyond what came in (settlement.py: an edit's
    balance never collected, or an invoice of its placing never paid), carried by the
    cancellation's email. None when they bill no more, or it has no invoice."""
    invoice = Invoice.objects.filter(order=order, kind=Invoice.Kind.INVOICE).order_by("-number").first()
    if invoice is None:
        return None
    amount = min(to_credit(order, paid_minor=paid_minor), invoice_left(invoice))
    if amount <= 0:
        return None
    return credit_note_issue(invoice, amount_minor=amount, email_kind=CANCELLATION_EMAIL)


def credit_note_for_refund(refund: Refund, *, in_cancellation: bool, paid_minor: int) -> Invoice | None:
    """A refund of an invoiced order, in the refund's transaction (stored): its credit note against
    the order's latest invoice, carried by the refund's own email, or by the cancellation's that
    tells it. None for an order without an invoice (nothing to correct), and for a refund of the
    overpayment (`paid_minor` beyond what an edit left the order: settlement.py)."""
    invoice = (
        Invoice.objects.filter(order=refund.order, kind=Invoice.Kind.INVOICE).order_by("-number").first()
    )
    if invoice is None:
        return None
    amount = min(to_credit(refund.order, paid_minor=paid_minor), invoice_left(invoice))
    if amount <= 0:
        return None
    return credit_note_issue(
        invoice,
        amount_minor=amount,
        refund=refund,
        email_kind=CANCELLATION_EMAIL if in_cancellation else REFUND_EMAIL,
        email_subject_id=None if in_cancellation else refund.id,
    )


def invoice_left(invoice: Invoice) -> int:
    """What is left of an invoice to credit: its total less the credit notes against it."""
    notes = Invoice.objects.filter(corrects=invoice, kind=Invoice.Kind.CREDIT_NOTE)
    return invoice.total_minor + sum(notes.values_list("total_minor", flat=True))
