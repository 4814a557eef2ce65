"""What came in for a platform's order: what its payload proves, and never more, because it is the
ceiling of every refund (orders/refunds.py) and an accountant's figure.

A platform's word that an order is paid stands for its total where the platform says no amount
(WooCommerce's `date_paid`, Saleor's charge status, Shopify's `paid` without its figures). Where it
says an amount (Shopify's current total less what is due, plus what went back), the order is
counted as paid that much: one first seen paid in part (`partially_paid`), or edited and
refunded before we heard of it, is not taken as paid in full. A payment reported without an
amount that can be read (a WooCommerce order paid once and waiting for another) is not counted
until the platform proves more, and the delivery's reason says why. An order first seen refunded
in full (WooCommerce's status refunded) is paid what its refunds gave back: what came in and went
back, so it is neither owed (a balance) nor kept (money not refunded).

There is no "paid" email: a payment, in full or in part, is the order's state, its invoice once
it is paid in full (orders/invoicing/), and the daily sales figure."""

from intake.shapes import PlatformOrder, refunded_minor
from orders.content import minor_to_amount
from orders.currencies import amount_minor
from orders.invoicing.issue import invoice_issue_at_payment
from orders.models import Order


def received_toward(snapshot: PlatformOrder, total_minor: int) -> int:
    """What the platform's order proves came in toward a total of `total_minor`, at its first
    payment: 0 when it says no payment, or one whose amount cannot be read; what its refunds gave
    back when it says all went back (PlatformOrder.refunded_in_full)."""
    if not snapshot.paid:
        return 0
    received = snapshot.received_minor
    if received is None:
        received = refunded_minor(snapshot.refunds) if snapshot.refunded_in_full else total_minor
    return max(0, min(received, total_minor))


def payment_in_words(snapshot: PlatformOrder, received: int, total_minor: int, currency: str) -> list[str]:
    """The delivery's words for a payment of `received` recorded toward `total_minor` (or, when
    nothing could be counted, why)."""
    if received >= total_minor:
        return ["paid"]
    if received > 0:
        part, whole = minor_to_amount(received, currency), minor_to_amount(total_minor, currency)
        why = " (what its refunds gave back: it was refunded in full)" if snapshot.refunded_in_full else ""
        return [f"paid in part: {part} of {whole} {currency}{why}"]
    return [snapshot.payment_unread] if snapshot.payment_unread else []


def paid_catch_up(order: Order, snapshot: PlatformOrder) -> None:
    """A paid order whose payment fell short of its total (an edit raised it, or it came paid in
    part) is counted as paid as much as its platform now proves came in, up to its total, so that
    a refund of it, the cancellation's among them, can go back: in full when the platform says so
    (snapshot.paid_in_full: Shopify's total_outstanding, Saleor's charge status, WooCommerce's
    order moved on), the amount its figures prove (Shopify), or what its refunds gave back, where
    a refund proves that its money came in first (not WooCommerce's, which may be recorded by
    hand). A platform's "paid" alone is not that: Shopify's `refunded` and `partially_refunded`
    say money went back, not that a balance came in. An order an edit lowered keeps what it took:
    the platform refunds the difference."""
    total = amount_minor(order.amount, order.currency)
    content = snapshot.content
    if order.paid_minor is None or order.paid_minor >= total or content is None:
        return
    if content["currency"] != order.currency or content["total"] < total:
        return  # its edit left out: what came in for the platform's total may be less than ours
    proven = total if snapshot.paid_in_full else (snapshot.received_minor or 0)
    if snapshot.refunds_prove_payment:
        proven = max(proven, refunded_minor(snapshot.refunds))
    if min(proven, total) > order.paid_minor:
        order.paid_minor = min(proven, total)
        # Its last change: the reconciliation finds an order paid in full by it (invoice_findings.py).
        order.save(update_fields=["paid_minor", "updated_at"])
        # Paid in full now: the invoice a payment in part left waiting (orders/invoicing/issue.py).
        invoice_issue_at_payment(order)
