"""What an order's invoices and credit notes must bill together: its content as it holds now,
less what went back to the customer for it.

Money goes back for two reasons the documents tell apart. What an edit took off an order after
its payment was paid beyond what the order holds (the overpayment): a refund of it returns that
money and corrects no invoice, since the edit's new invoice already bills the order as it holds.
Any other money back (a return, a goodwill sum) takes that much off what the customer pays for:
it is credited when it is made, and again after each edit, whose new invoice bills the whole
content anew. So the documents never bill a refunded item twice, nor credit an overpayment."""

from django.db.models import Sum

from orders.currencies import amount_minor
from orders.models import Invoice, Order, Refund


def billable(order: Order, *, paid_minor: int) -> int:
    """What the order's documents must come to: its total less what refunds gave back beyond
    the overpayment (what its payment, `paid_minor`, took beyond its total)."""
    total = amount_minor(order.amount, order.currency)
    refunded = Refund.objects.filter(order=order).aggregate(sum=Sum("amount_minor"))["sum"] or 0
    return billable_of(total_minor=total, refunded_minor=refunded, paid_minor=paid_minor)


def billable_of(*, total_minor: int, refunded_minor: int, paid_minor: int) -> int:
    """`billable` from the sums already read: the one rule, for a reader of many orders at once
    (the reconciliation, operations/reconciliation/invoice_findings.py)."""
    return total_minor - max(0, refunded_minor - max(0, paid_minor - total_minor))


def to_credit(order: Order, *, paid_minor: int) -> int:
    """What the order's documents bill beyond what they must (a credit note's amount when more
    than 0): its invoices less its credit notes, which are negative, less `billable`."""
    billed = Invoice.objects.filter(order=order).aggregate(sum=Sum("total_minor"))["sum"] or 0
    return billed - billable(order, paid_minor=paid_minor)
