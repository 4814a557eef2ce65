"""Money going back to the customer: a refund is stored with its `order.refunded` event in one
transaction, and that event is the customer's "refunded" email. A refund announced with the
order's cancellation is stored in the cancellation's transaction instead, without an event of
its own: the cancellation's email tells it.

The shop's own refund id makes the call idempotent, as for shipments. What was paid is the
order's total when it was paid (`paid_minor`: an edit of the order afterwards changes neither
way what came in), and nothing before: money that never came in
cannot go back. A refund is refused when it is more than what was paid less what earlier
refunds gave back: naming both amounts, or saying that the order was never paid. Refunded
lines must be the order's, never more of one than was ordered less what earlier refunds
named."""

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Sum

from apiauth.models import ApiToken
from messaging.outbox import event_record
from orders.changes import OrderChange, order_cancel, order_lock, order_paid_at, order_paid_minor
from orders.content import CONTENT_ERASED, content_erased_message, lines_ordered, minor_to_amount
from orders.events import ORDER_REFUNDED
from orders.invoicing.issue import credit_note_for_refund
from orders.models import Order, Refund, Shipment
from orders.selectors import order_content


class RefundRefused(Exception):
    """The refund does not fit the order (409): `code` in a word, the message in words."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class RefundRequest:
    shop_refund_id: str
    amount_minor: int  # in the order's currency's minor units
    lines: list[dict[str, Any]] = field(default_factory=list)  # [{"sku", "quantity"}]
    reason: str = ""
    shop_shipment_id: str = ""  # the parcel it answers (a return), if any


@dataclass(frozen=True)
class RefundCreation:
    refund: Refund
    replayed: bool  # the shop announced this refund before: nothing new happened


@transaction.atomic(durable=True)
def refund_create(*, order_id: UUID, api_token: ApiToken | None, request: RefundRequest) -> RefundCreation:
    order = order_lock(order_id=order_id, api_token=api_token)
    return refund_record(order, request, in_cancellation=False)


def order_cancel_with_refund(
    *,
    order_id: UUID,
    api_token: ApiToken | None,
    expected_version: int | None = None,
    refund: RefundRequest | None = None,
) -> OrderChange:
    """Cancel the order and, if the shop says so, record what it refunds, in one transaction:
    the cancellation's email tells the refund. Sent again after the cancellation, the same
    refund is a replay; another one is an ordinary refund with its own email."""
    if refund is None:
        return order_cancel(order_id=order_id, api_token=api_token, expected_version=expected_version)

    def refund_with_it(order: Order, cancelled_now: bool) -> None:
        refund_record(order, refund, in_cancellation=cancelled_now)

    return order_cancel(
        order_id=order_id, api_token=api_token, expected_version=expected_version, also=refund_with_it
    )


def refund_record(order: Order, request: RefundRequest, *, in_cancellation: bool) -> RefundCreation:
    """The caller holds the transaction and the order's lock (order_lock)."""
    fingerprint = hashlib.sha256(json.dumps(asdict(request), sort_keys=True).encode()).hexdigest()
    earlier = Refund.objects.filter(order=order, shop_refund_id=request.shop_refund_id).first()
    if earlier is not None:
        if earlier.request_fingerprint != fingerprint:
            raise RefundRefused(
                "refund_id_taken",
                f"Refund {request.shop_refund_id} of order {order.number or order.id} was already "
                "announced with other content. A new refund needs a new refund id.",
            )
        return RefundCreation(refund=earlier, replayed=True)
    shipment = _answered_shipment(order, request.shop_shipment_id)
    _refundable_check(order, request.amount_minor)
    refund = Refund.objects.create(
        order=order,
        shop_refund_id=request.shop_refund_id,
        amount_minor=request.amount_minor,
        lines=_refund_lines(order, request.lines),
        reason=request.reason,
        shipment=shipment,
        in_cancellation=in_cancellation,
        request_fingerprint=fingerprint,
    )
    if not in_cancellation:
        event_record(event_type=ORDER_REFUNDED, aggregate_id=refund.id)
    credit_note_for_refund(refund, in_cancellation=in_cancellation, paid_minor=order_paid_minor(order))
    return RefundCreation(refund=refund, replayed=False)


def _answered_shipment(order: Order, shop_shipment_id: str) -> Shipment | None:
    if not shop_shipment_id:
        return None
    shipment = Shipment.objects.filter(order=order, shop_shipment_id=shop_shipment_id).first()
    if shipment is None:
        raise RefundRefused(
            "shipment_unknown",
            f"Order {order.number or order.id} has no shipment {shop_shipment_id} (yet): announce the "
            "shipment first, then the refund that answers it.",
        )
    return shipment


def _refundable_check(order: Order, amount_minor: int) -> None:
    """At most what was paid less earlier refunds; an order never paid took nothing (a
    cancellation runs this after its status change, and keeps `paid_at`)."""

    def money(minor: int) -> str:
        return f"{minor_to_amount(minor, order.currency)} {order.currency}"

    if order_paid_at(order) is None:
        raise RefundRefused(
            "refund_exceeds_paid",
            f"This refund is {money(amount_minor)}, but this order was never paid: nothing can go back.",
        )
    paid = order_paid_minor(order)
    refunded = Refund.objects.filter(order=order).aggregate(sum=Sum("amount_minor"))["sum"] or 0
    left = paid - refunded
    if amount_minor > left:
        raise RefundRefused(
            "refund_exceeds_paid",
            f"This refund is {money(amount_minor)}, but only {money(left)} of the {money(paid)} paid "
            "is not refunded yet.",
        )


def _refund_lines(order: Order, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not lines:
        return []
    content = order_content(order)
    if content is None:
        raise RefundRefused(
            "refund_lines_unknown",
            "This order was placed with the short body and has no lines: announce its refund without lines.",
        )
    if order.erased_at is not None:
        raise RefundRefused(CONTENT_ERASED, content_erased_message(str(order.number or order.id)))
    ordered, names = lines_ordered(content)
    refunded: Counter[str] = Counter()
    for refund in Refund.objects.filter(order=order):
        for line in refund.lines:
            refunded[line["sku"]] += line["quantity"]
    in_refund: Counter[str] = Counter()
    for line in lines:
        sku = line["sku"]
        if sku not in ordered:
            raise RefundRefused(
                "refund_lines_unknown", f"Order {order.number or order.id} has no line with the SKU {sku}."
            )
        in_refund[sku] += line["quantity"]
        if in_refund[sku] > ordered[sku] - refunded[sku]:
            raise RefundRefused(
                "refund_exceeds_order",
                f"{sku}: this refund names {in_refund[sku]}, but only {ordered[sku] - refunded[sku]} of the "
                f"{ordered[sku]} ordered have not been refunded yet.",
            )
    return [{"sku": sku, "name": names[sku], "quantity": quantity} for sku, quantity in in_refund.items()]
