"""What an order's invoices and credit notes must bill together: its content as it holds now,
less what went back to the customer for it; for a cancelled order, no more than came in.

Money goes back for two reasons the documents tell apart. What an edit took off an order after
its payment was paid beyond what the order holds (the overpayment): a refund of it returns that
money and corrects no invoice, since the edit's new invoice already bills the order as it holds.
Any other money back (a return, a goodwill sum) takes that much off what the customer pays for:
it is credited when it is made, and again after each edit, whose new invoice bills the whole
content anew. So the documents never bill a refunded item twice, nor credit an overpayment.

A cancelled order will never take what did not come in: its documents bill what it was paid, at
most its total, less those refunds. So an edit's balance that was never collected (the order
cancelled while it waited for it), or the whole of an order invoiced at its placing and never
paid, is credited with the cancellation, and an order whose money all went back bills nothing."""

from django.db.models import Sum

from orders.currencies import amount_minor
from orders.models import Invoice, Order, Refund


def billable(order: Order, *, paid_minor: int) -> int:
    """What the order's documents must come to: its total (a cancelled order's: what its
    payment, `paid_minor`, took of it) less what refunds gave back beyond the overpayment (what
    its payment took beyond its total)."""
    total = amount_minor(order.amount, order.currency)
    refunded = Refund.objects.filter(order=order).aggregate(sum=Sum("amount_minor"))["sum"] or 0
    return billable_of(
        total_minor=total,
        refunded_minor=refunded,
        paid_minor=paid_minor,
        cancelled=order.status == Order.Status.CANCELLED,
    )


def billable_of(*, total_minor: int, refunded_minor: int, paid_minor: int, cancelled: bool) -> int:
    """`billable` from the sums already read: the one rule, for a reader of many orders at once
    (the reconciliation, operations/reconciliation/invoice_findings.py)."""
    owed = min(total_minor, paid_minor) if cancelled else total_minor
    return owed - max(0, refunded_minor - max(0, paid_minor - total_minor))


def to_credit(order: Order, *, paid_minor: int) -> int:
    """What the order's documents bill beyond what they must (a credit note's amount when more
    than 0): its invoices less its credit notes, which are negative, less `billable`."""
    billed = Invoice.objects.filter(order=order).aggregate(sum=Sum("total_minor"))["sum"] or 0
    return billed - billable(order, paid_minor=paid_minor)
