"""Shopify's Fulfillment and Refund, as our parcels and refunds."""

from typing import Any

from intake.payload_fields import count, iso_time, mapping, objects, required, text
from intake.shapes import PlatformParcelNews, PlatformRefund, PlatformShipment, Unusable
from intake.shopify.fields import minor, sku
from orders.content import NAME_TEXT, SHORT_TEXT
from orders.parcel_progress import MESSAGE_MAX, REPORTED_STATUSES, happened_at_problem


def shipment_from_payload(payload: dict[str, Any]) -> PlatformShipment | None:
    """A Fulfillment; None while it has not left (a status other than "success")."""
    if payload.get("status") != "success":
        return None
    # A local delivery names no carrier: its email then says only that the parcel has left.
    carrier = payload.get("tracking_company") or ""
    return PlatformShipment(
        shipment_id=str(required(payload, "id")),
        carrier=text(carrier, SHORT_TEXT, "tracking_company"),
        tracking_number=text(payload.get("tracking_number") or "", SHORT_TEXT, "tracking_number"),
        tracking_url=str(payload.get("tracking_url") or ""),  # checked where it is applied
        lines=[
            {"sku": sku(item), "quantity": count(required(item, "quantity"), "line_items[].quantity")}
            for item in objects(payload.get("line_items"), "line_items")
        ],
    )


def parcel_news_from_payload(payload: dict[str, Any]) -> PlatformParcelNews | None:
    """A FulfillmentEvent; None for a status no customer is told of (confirmed, label_printed,
    ready_for_pickup, delayed, and those Shopify adds later). Its statuses are our words."""
    status = payload.get("status")
    if status not in REPORTED_STATUSES:
        return None
    moment = payload.get("happened_at") or payload.get("created_at")
    happened_at = iso_time(moment, "happened_at")
    problem = happened_at_problem(happened_at)
    if problem:
        raise Unusable(problem)
    return PlatformParcelNews(
        shipment_id=text(required(payload, "fulfillment_id"), SHORT_TEXT, "fulfillment_id"),
        event_id=text(required(payload, "id"), SHORT_TEXT, "id"),
        status=str(status),
        happened_at=happened_at,
        message=text(payload.get("message") or "", MESSAGE_MAX, "message"),
    )


def refund_from_payload(payload: dict[str, Any], currency: str) -> PlatformRefund | None:
    """A Refund; None when no money went back (a restock, an adjustment of zero)."""
    amount = sum(
        minor(transaction, "amount", currency)
        for transaction in objects(payload.get("transactions"), "transactions")
        if transaction.get("kind") == "refund" and transaction.get("status") == "success"
    )
    if amount <= 0:
        return None
    return PlatformRefund(
        refund_id=str(required(payload, "id")),
        amount_minor=amount,
        lines=[
            {
                "sku": sku(mapping(required(item, "line_item"), "refund_line_items[].line_item")),
                "quantity": count(item["quantity"], "refund_line_items[].quantity"),
            }
            for item in objects(payload.get("refund_line_items"), "refund_line_items")
            if count(item.get("quantity") or 0, "refund_line_items[].quantity") > 0
        ],
        reason=text(payload.get("note") or "", NAME_TEXT, "note"),
    )
