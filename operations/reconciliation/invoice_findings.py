"""What reconcile finds about the invoices and credit notes, as a shop's accountant would:

- missing_invoices: an order with lines whose invoice INVOICE_ISSUED_WHEN calls for, and none;
- unsettled_documents: an invoiced order whose invoices and credit notes bill more or less than
  it owes (orders/invoicing/settlement.py);
- broken_numbering (invoice_numbering.py): a series with a number no document holds (a gap)
  or one held twice.

Each is a Finding kept as a mismatch like the emails' (mismatches.py), and reads the window's
rows only (findings.window_start): older days were checked by earlier runs. A document the
retention job deleted (orders/invoicing/retention.py) still counts: its DeletedInvoice holds
its number and marks its order invoiced.
"""

from datetime import datetime

from django.db.models import Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from notifications.models import ReconcileMismatch
from operations.reconciliation.findings import LIMIT, Finding, Found, found_of, local_time
from orders.changes import order_paid_minor
from orders.content import minor_to_amount
from orders.currencies import amount_minor
from orders.invoicing.issue import invoice_due, invoice_due_at_payment_if_none
from orders.invoicing.settlement import billable_of
from orders.models import DeletedInvoice, Invoice, Order, OrderVersion, Refund

Problem = ReconcileMismatch.Problem


def missing_invoices(*, since: datetime) -> Found:
    """Orders with lines whose invoice fell due in the window (at their placing or their payment,
    as INVOICE_ISSUED_WHEN says) with no invoice. Not an erased order: its lines lost what an
    invoice shows, so its payment issues none (issue.py); nor a short-body order (no lines).
    No `before`: an invoice commits with the placing or the payment that calls for it."""
    due = _invoice_due_since(since)
    if due is None:
        return found_of(Problem.MISSING_INVOICE, [])
    invoice = Invoice.objects.filter(order=OuterRef("pk"), kind=Invoice.Kind.INVOICE)
    deleted = DeletedInvoice.objects.filter(order=OuterRef("pk"), kind=Invoice.Kind.INVOICE)
    content = OrderVersion.objects.filter(order=OuterRef("pk"), number=OuterRef("content_version"))
    orders = (
        Order.objects.filter(due, content_version__isnull=False, erased_at__isnull=True)
        .filter(Exists(content), ~Exists(invoice), ~Exists(deleted))
        .order_by("created_at")[: LIMIT + 1]
    )
    findings = []
    for order in orders:
        due_at = _due_at(order, since)
        findings.append(
            Finding(
                problem=Problem.MISSING_INVOICE,
                subject=f"{order.pk}:invoice",
                day=timezone.localdate(due_at),
                detail=f"{_paid_or_placed(order, since)} {local_time(due_at)} with its lines, and no invoice "
                "was issued for it.",
                order_id=order.pk,
                amount=order.amount,
                currency=order.currency,
            )
        )
    return found_of(Problem.MISSING_INVOICE, findings)


def _invoice_due_since(since: datetime) -> Q | None:
    """The orders whose invoice fell due since `since`: placed then, when it is issued at the
    placing (paid or not); paid and changed since, when at the payment, which also invoices an
    order placed before it was issued at the placing (issue.py); under `paid`, paid in full: an
    order paid in part waits for its balance (its total in minor units is its content's, which
    every order checked here has); none when invoices are off. "Changed since", not "paid
    since": a paid order changed in the window is checked again, which costs a row at most."""
    if not invoice_due_at_payment_if_none():
        return None
    # A payment moves the order's last change, and so does the balance that completes a deposit
    # (intake/platform_payments.py): a deposit paid before the window does not hide its balance.
    paid = (Q(paid_at__isnull=False) | Q(status=Order.Status.PAID)) & Q(updated_at__gte=since)
    if invoice_due(placed=True, paid=False):
        return Q(created_at__gte=since) | paid
    content = OrderVersion.objects.filter(order=OuterRef("pk"), number=OuterRef("content_version"))
    total = Subquery(content.values("total_minor")[:1])
    return paid & (Q(paid_minor__isnull=True) | Q(paid_minor__gte=total))


def _due_at(order: Order, since: datetime) -> datetime:
    """Its placing, its payment, or (a deposit paid before the window) its last change, which
    is at or after the balance that completed it."""
    placing = invoice_due(placed=True, paid=False) and order.created_at >= since
    if placing or (order.paid_at is None and order.status != Order.Status.PAID):
        return order.created_at
    return order.paid_at if order.paid_at is not None and order.paid_at >= since else order.updated_at


def _paid_or_placed(order: Order, since: datetime) -> str:
    due_at = _due_at(order, since)
    if due_at == order.created_at:
        return "Placed"
    return "Paid" if due_at == order.paid_at else "Paid in full (or changed) by"


def unsettled_documents(*, since: datetime) -> Found:
    """Invoiced orders that changed in the window (paid, edited, cancelled, refunded, or a
    document issued) whose documents do not come to what they owe: settlement.to_credit is not
    0, read for all of them in one query (the sums per order, then settlement's own rule). An
    order with a deleted document is left out: its deleted totals are not known any more."""
    invoiced = Invoice.objects.filter(order=OuterRef("pk"), kind=Invoice.Kind.INVOICE)
    deleted = DeletedInvoice.objects.filter(order=OuterRef("pk"))
    changed = (
        Q(updated_at__gte=since)
        | Exists(Invoice.objects.filter(order=OuterRef("pk"), issued_at__gte=since))
        | Exists(Refund.objects.filter(order=OuterRef("pk"), created_at__gte=since))
    )
    orders = (
        Order.objects.filter(Exists(invoiced), changed)
        .exclude(Exists(deleted))
        .annotate(
            billed=_sum_of(Invoice.objects.filter(order=OuterRef("pk")), "total_minor"),
            refunded=_sum_of(Refund.objects.filter(order=OuterRef("pk")), "amount_minor"),
        )
        .order_by("created_at")
    )
    findings: list[Finding] = []
    for order in orders.iterator(chunk_size=2000):
        billed, refunded = _sums(order)
        owed = billable_of(
            total_minor=amount_minor(order.amount, order.currency),
            refunded_minor=refunded,
            paid_minor=order_paid_minor(order),
            cancelled=order.status == Order.Status.CANCELLED,
        )
        if billed != owed:
            findings.append(_unsettled(order, billed=billed, owed=owed))
        if len(findings) > LIMIT:
            break
    return found_of(Problem.UNSETTLED_DOCUMENTS, findings)


def _sum_of(rows: QuerySet, field: str) -> Coalesce:
    """The sum of `field` over `rows` of the outer order (0 when it has none)."""
    total = Subquery(rows.order_by().values("order").annotate(total=Sum(field)).values("total"))
    return Coalesce(total, 0, output_field=IntegerField())


def _sums(order: Order) -> tuple[int, int]:
    """What its documents bill and its refunds gave back (annotated: the stubs do not see them)."""
    return order.billed, order.refunded  # type: ignore[attr-defined]


def _unsettled(order: Order, *, billed: int, owed: int) -> Finding:
    beyond = billed - owed  # what settlement.to_credit says
    why = (
        "a credit note is missing (a refund or a change without its document?)"
        if beyond > 0
        else "it is billed too little (a credit note too many, or an invoice missing?)"
    )
    return Finding(
        problem=Problem.UNSETTLED_DOCUMENTS,
        subject=f"{order.pk}:documents",
        day=timezone.localdate(order.created_at),
        detail=f"Its invoices and credit notes bill {_money(billed, order)}, it owes "
        f"{_money(owed, order)} (its total less what refunds gave back beyond an overpayment): "
        f"{_money(abs(beyond), order)} apart; {why}.",
        order_id=order.pk,
        amount=minor_to_amount(beyond, order.currency),
        currency=order.currency,
    )


def _money(minor: int, order: Order) -> str:
    return f"{minor_to_amount(minor, order.currency)} {order.currency}"


def invoice_problems_summary(found: list[Found]) -> str:
    """The report's words for them: "0 order(s) without their invoice, ..."."""
    count = {group.problem: len(group.findings) for group in found}
    return (
        f"{count[Problem.MISSING_INVOICE]} order(s) without their invoice, "
        f"{count[Problem.UNSETTLED_DOCUMENTS]} whose invoices and credit notes do not add up, "
        f"{count[Problem.INVOICE_NUMBERING]} invoice series with a gap or a number twice"
    )
