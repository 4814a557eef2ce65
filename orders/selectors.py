"""Reads of an order that other features need, beside the model itself."""

from typing import Any
from uuid import UUID

from django.db.models import Sum

from orders.events import AGGREGATE, EDIT_AGGREGATE, INVOICE_AGGREGATE, REFUND_AGGREGATE, SHIPMENT_AGGREGATE
from orders.models import Invoice, Order, OrderEdit, OrderVersion, Refund, Shipment
from shops.models import SHOP_EMAIL_FIELDS, Shop


def order_shop(order: Order) -> dict[str, Any] | None:
    """The fields of the order's connected shop that its emails show (its brand, legal data and
    sender; never its secret); None for an order of no shop."""
    if order.shop_id is None:
        return None
    return Shop.objects.filter(pk=order.shop_id).values(*SHOP_EMAIL_FIELDS).first()


def order_content(order: Order, number: int | None = None) -> dict[str, Any] | None:
    """What was bought, as version `number` of the order says it (default: the current one);
    None for an order placed with the short body, which has no content."""
    number = number or order.content_version
    if number is None:
        return None
    return (
        OrderVersion.objects.filter(order_id=order.pk, number=number)
        .values_list("content", flat=True)
        .first()
    )


def shipment_row(shipment_id: UUID) -> dict[str, Any] | None:
    """A shipment's columns by name, as an email's context takes them."""
    row = Shipment.objects.filter(pk=shipment_id).values().first()
    return dict(row) if row is not None else None


def edit_row(edit_id: UUID) -> dict[str, Any] | None:
    """An order edit's columns by name, as an email's context takes them."""
    row = OrderEdit.objects.filter(pk=edit_id).values().first()
    return dict(row) if row is not None else None


def invoice_row(invoice_id: UUID) -> dict[str, Any] | None:
    """What an invoice's email says of it: its number and total (never its PDF's bytes)."""
    row = Invoice.objects.filter(pk=invoice_id).values("number_text", "total_minor").first()
    return dict(row) if row is not None else None


def refund_row(refund_id: UUID) -> dict[str, Any] | None:
    """A refund's columns by name, as an email's context takes them."""
    row = Refund.objects.filter(pk=refund_id).values().first()
    return dict(row) if row is not None else None


def cancellation_about(order_id: UUID) -> dict[str, Any]:
    """What the order's cancellation email tells of money: the refunds announced with it, and
    the sum of those made before it (minor units), as the claim reads them."""
    refunds = Refund.objects.filter(order_id=order_id)
    return {
        "refunds": [
            dict(row) for row in refunds.filter(in_cancellation=True).order_by("created_at").values()
        ],
        "refunded_before": refunds.filter(in_cancellation=False).aggregate(sum=Sum("amount_minor"))["sum"]
        or 0,
    }


def subject_order_id(aggregate: str, subject_id: UUID | str) -> UUID | None:
    """The order an event's aggregate belongs to: the order itself, or the order of a shipment
    (or of another part of an order's life with events of its own); None when there is no such
    row, or the aggregate is none of the order's."""
    try:
        subject_id = UUID(str(subject_id))
    except ValueError:
        return None
    if aggregate == AGGREGATE:
        return Order.objects.filter(pk=subject_id).values_list("pk", flat=True).first()
    if aggregate == SHIPMENT_AGGREGATE:
        return Shipment.objects.filter(pk=subject_id).values_list("order_id", flat=True).first()
    if aggregate == REFUND_AGGREGATE:
        return Refund.objects.filter(pk=subject_id).values_list("order_id", flat=True).first()
    if aggregate == EDIT_AGGREGATE:
        return OrderEdit.objects.filter(pk=subject_id).values_list("order_id", flat=True).first()
    if aggregate == INVOICE_AGGREGATE:
        return Invoice.objects.filter(pk=subject_id).values_list("order_id", flat=True).first()
    return None
