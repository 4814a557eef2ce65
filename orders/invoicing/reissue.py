"""An edit's documents, in the edit's transaction: an invoiced order's issued anew (a credit
note of what is left of its latest invoice, a new invoice of the edited content, and a credit
note of what went back before, a return, against it), so that they bill what it owes
(settlement.py).

An edit also brings the invoice of an order paid in part that it leaves paid in full (its total
brought down to what its deposit paid): under `paid` that invoice waits for the payment that
completes it (issue.invoice_issue_at_payment), and none will come."""

from typing import Any
from uuid import UUID

from orders.invoicing.issue import (
    CANCELLATION_EMAIL,
    EDIT_EMAIL,
    credit_note_issue,
    invoice_issue,
    invoice_issue_at_payment,
    invoice_left,
    paid_in_full,
)
from orders.invoicing.settlement import to_credit
from orders.models import Invoice, Order, OrderVersion


def invoice_reissue_for_edit(
    order: Order, *, content: dict[str, Any], version_number: int, edit_id: UUID | None, paid_minor: int
) -> tuple[Invoice | None, Invoice] | None:
    """An edit of an invoiced order: a credit note of what is left of its latest invoice (its
    total less the credit notes already against it), then a new invoice of the edited content
    and, when money went back before (a return), a credit note of it against the new one, all
    carried by the "order changed" email, or by the cancellation's for an edit untold with it
    (`edit_id` None). None for an order without an invoice (its invoice, when it is paid, bills
    the content of that moment), which gets it now, in an email of its own as at a payment, if
    the edit left what its payment in part took covering its total."""
    invoice = Invoice.objects.filter(order=order, kind=Invoice.Kind.INVOICE).order_by("-number").first()
    if invoice is None:
        if 0 < paid_minor < _total_before(order, version_number) and paid_in_full(order):
            invoice_issue_at_payment(order)
        return None
    carried: dict[str, Any] = (
        {"email_kind": EDIT_EMAIL, "email_subject_id": edit_id}
        if edit_id is not None
        else {"email_kind": CANCELLATION_EMAIL, "email_subject_id": None}
    )
    left = invoice_left(invoice)
    note = credit_note_issue(invoice, amount_minor=left, **carried) if left > 0 else None
    new = invoice_issue(order, content=content, version_number=version_number, **carried)
    refunded = min(to_credit(order, paid_minor=paid_minor), new.total_minor)
    if refunded > 0:
        credit_note_issue(new, amount_minor=refunded, **carried)
    return note, new


def _total_before(order: Order, version_number: int) -> int:
    """The total of the content the edit to `version_number` changed (0 when it is not kept)."""
    before = OrderVersion.objects.filter(order=order, number=version_number - 1)
    return before.values_list("total_minor", flat=True).first() or 0
