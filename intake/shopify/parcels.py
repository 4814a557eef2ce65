"""Shopify's Fulfillment and Refund, as our parcels and refunds."""

from typing import Any

from intake.payload_fields import required, text
from intake.shapes import PlatformRefund, PlatformShipment
from intake.shopify.fields import minor, sku
from orders.content import NAME_TEXT, SHORT_TEXT


def shipment_from_payload(payload: dict[str, Any]) -> PlatformShipment | None:
    """A Fulfillment; None while it has not left (a status other than "success")."""
    if payload.get("status") != "success":
        return None
    # A local delivery names no carrier: its email then says only that the parcel has left.
    carrier = payload.get("tracking_company") or ""
    return PlatformShipment(
        shipment_id=str(required(payload, "id")),
        carrier=text(carrier, SHORT_TEXT),
        tracking_number=text(payload.get("tracking_number") or "", SHORT_TEXT),
        tracking_url=str(payload.get("tracking_url") or ""),  # checked where it is applied
        lines=[
            {"sku": sku(item), "quantity": int(required(item, "quantity"))}
            for item in payload.get("line_items") or []
        ],
    )


def refund_from_payload(payload: dict[str, Any], currency: str) -> PlatformRefund | None:
    """A Refund; None when no money went back (a restock, an adjustment of zero)."""
    amount = sum(
        minor(transaction, "amount", currency)
        for transaction in payload.get("transactions") or []
        if transaction.get("kind") == "refund" and transaction.get("status") == "success"
    )
    if amount <= 0:
        return None
    return PlatformRefund(
        refund_id=str(required(payload, "id")),
        amount_minor=amount,
        lines=[
            {"sku": sku(required(item, "line_item")), "quantity": int(required(item, "quantity"))}
            for item in payload.get("refund_line_items") or []
            if int(item.get("quantity") or 0) > 0
        ],
        reason=text(payload.get("note") or "", NAME_TEXT),
    )
