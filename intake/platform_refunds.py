"""A platform's refund applied to our order: money that went back to the customer, a fact the
platform reports, recorded through the orders' own service with its credit note and email.

Its lines may name what the order does not hold: a line added by an edit we left out (another
currency, one past PLATFORM_EDITS_PER_ORDER_MAX, a fee), or more of a line than we know was
ordered. Refusing such a refund would make the whole delivery unusable, and every later
delivery of the order, which carries the refund again, with it: the order's cancellation and
parcels' news would never be applied. So the refund is recorded by its amount alone, with the
reason in the delivery; what it may take back stays bounded by what was paid."""

from dataclasses import replace

from django.db import transaction

from intake.shapes import PlatformRefund, Unusable
from orders.models import Order, Refund
from orders.refunds import RefundRefused, RefundRequest, refund_record

# What the lines' check refuses (orders/refunds.py); any other refusal is about the money.
LINES_NOT_FITTING = frozenset({"refund_lines_unknown", "refund_exceeds_order"})


def refund_apply(order: Order, refund: PlatformRefund, *, in_cancellation: bool = False) -> list[str]:
    """The refund recorded unless it was; what was done, in words. Unusable when the order
    cannot take its amount."""
    if Refund.objects.filter(order=order, shop_refund_id=refund.refund_id).exists():
        return []
    request = RefundRequest(
        shop_refund_id=refund.refund_id,
        amount_minor=refund.amount_minor,
        lines=refund.lines,
        reason=refund.reason,
    )
    recorded = f"refund {refund.refund_id} recorded" + (" with the cancellation" if in_cancellation else "")
    try:
        with transaction.atomic():  # nothing of a refused try stays
            refund_record(order, request, in_cancellation=in_cancellation)
    except RefundRefused as exc:
        if exc.code not in LINES_NOT_FITTING or not request.lines:
            raise Unusable(str(exc)) from exc
        try:
            refund_record(order, replace(request, lines=[]), in_cancellation=in_cancellation)
        except RefundRefused as money:
            raise Unusable(str(money)) from money
        return [f"{recorded} by its amount alone: {exc}"]
    return [recorded]
