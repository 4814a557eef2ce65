"""A parcel of an order leaves the shop: the shipment is stored with its `order.shipped` event in
one transaction, and that event is the customer's "shipped" email.

The shop's own shipment id makes the call idempotent: sent again with the same body, the same
shipment comes back and nothing more happens; with another body, it is refused. The lines of a
shipment must be lines of the order, and never more of one than was ordered less what earlier
parcels carried: a shop's mistake is refused with both figures, before anything is stored."""

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from apiauth.models import ApiToken
from infra.storable_text import unstorable_character, unstorable_named
from messaging.outbox import event_record
from orders.changes import order_lock
from orders.content import CONTENT_ERASED, content_erased_message, lines_ordered
from orders.events import ORDER_SHIPPED
from orders.models import Order, Shipment
from orders.selectors import order_content

TRACKING_URL_MAX = 500  # Shipment.tracking_url's length
_HTTPS_URL = URLValidator(schemes=["https"])


def tracking_url_problem(url: str) -> str:
    """Why `url` may not be a parcel's tracking link, or "" when it may: the one rule for the
    API's `tracking_url` and for the link a shop's platform sends. The customer opens it from
    the button of the parcel's email, so it is a whole https:// address with a valid host
    (never http, javascript: or data:, never a line break) that fits the column uncut, without a
    character no text column holds (URLValidator lets a NUL or a lone surrogate through)."""
    if len(url) > TRACKING_URL_MAX:
        return f"The tracking link has {len(url)} characters; it may have at most {TRACKING_URL_MAX}."
    character = unstorable_character(url)
    if character is not None:
        return f"The tracking link contains {unstorable_named(character)}."
    if not url.startswith("https://"):
        return "Use an https:// address: the customer opens it from an email."
    try:
        _HTTPS_URL(url)
    except ValidationError:
        return "The tracking link is not a valid https:// address."
    return ""


class ShipmentRefused(Exception):
    """The shipment does not fit the order (409): `code` says why, in a word the client can
    branch on; the message says it in words."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ShipmentCreation:
    shipment: Shipment
    replayed: bool  # the shop sent this shipment before: nothing new happened


@transaction.atomic(durable=True)
def shipment_create(
    *,
    order_id: UUID,
    api_token: ApiToken | None,
    shop_shipment_id: str,
    carrier: str,
    tracking_number: str = "",
    tracking_url: str = "",
    lines: list[dict[str, Any]] | None = None,
) -> ShipmentCreation:
    """`lines`: [{"sku", "quantity"}], the order's lines in this parcel; none for an order
    placed with the short body (it has no lines), and for a shop's order none means everything
    not shipped yet. The order's row is locked first, as every
    change of an order and every claim of its emails does, so two parcels cannot both take the
    last of a line."""
    order = order_lock(order_id=order_id, api_token=api_token)
    return shipment_record(
        order,
        shop_shipment_id=shop_shipment_id,
        carrier=carrier,
        tracking_number=tracking_number,
        tracking_url=tracking_url,
        lines=lines,
    )


def shipment_record(
    order: Order,
    *,
    shop_shipment_id: str,
    carrier: str,
    tracking_number: str = "",
    tracking_url: str = "",
    lines: list[dict[str, Any]] | None = None,
) -> ShipmentCreation:
    """`shipment_create` for an order the caller holds locked, in the caller's transaction."""
    sent = {
        "shipment_id": shop_shipment_id,
        "carrier": carrier,
        "tracking_number": tracking_number,
        "tracking_url": tracking_url,
        "lines": lines or [],
    }
    fingerprint = hashlib.sha256(json.dumps(sent, sort_keys=True).encode()).hexdigest()
    earlier = list(Shipment.objects.filter(order=order))
    for shipment in earlier:
        if shipment.shop_shipment_id == shop_shipment_id:
            if shipment.request_fingerprint != fingerprint:
                raise ShipmentRefused(
                    "shipment_id_taken",
                    f"Shipment {shop_shipment_id} of order {order.number or order.id} was already "
                    "announced with other content. A new parcel needs a new shipment id.",
                )
            return ShipmentCreation(shipment=shipment, replayed=True)
    if order.status == Order.Status.CANCELLED:
        raise ShipmentRefused(
            "order_cancelled", f"Order {order.number or order.id} is cancelled: nothing ships."
        )
    shipment = Shipment.objects.create(
        order=order,
        shop_shipment_id=shop_shipment_id,
        carrier=carrier,
        tracking_number=tracking_number,
        tracking_url=tracking_url,
        lines=_parcel_lines(order, lines or [], earlier),
        request_fingerprint=fingerprint,
    )
    event_record(event_type=ORDER_SHIPPED, aggregate_id=shipment.id)
    return ShipmentCreation(shipment=shipment, replayed=False)


def _parcel_lines(order: Order, lines: list[dict[str, Any]], earlier: list[Shipment]) -> list[dict[str, Any]]:
    """The parcel's lines with their names from the order; raises ShipmentRefused at the first
    line that is not the order's or exceeds what is left of it."""
    content = order_content(order)
    if content is None:
        if lines:
            raise ShipmentRefused(
                "shipment_lines_unknown",
                "This order was placed with the short body and has no lines: "
                "announce its shipment without lines.",
            )
        return []
    if order.erased_at is not None:
        raise ShipmentRefused(CONTENT_ERASED, content_erased_message(str(order.number or order.id)))
    ordered, names = lines_ordered(content)
    shipped: Counter[str] = Counter()
    for shipment in earlier:
        for line in shipment.lines:
            shipped[line["sku"]] += line["quantity"]
    if not lines:  # the shop names no lines: the parcel carries everything not shipped yet
        lines = [
            {"sku": sku, "quantity": ordered[sku] - shipped[sku]}
            for sku in ordered
            if ordered[sku] > shipped[sku]
        ]
        if not lines:
            raise ShipmentRefused(
                "shipment_exceeds_order",
                f"Every line of order {order.number or order.id} has shipped already.",
            )
    in_parcel: Counter[str] = Counter()
    for line in lines:
        sku = line["sku"]
        if sku not in ordered:
            raise ShipmentRefused(
                "shipment_lines_unknown", f"Order {order.number or order.id} has no line with the SKU {sku}."
            )
        in_parcel[sku] += line["quantity"]
        left = ordered[sku] - shipped[sku]
        if in_parcel[sku] > left:
            raise ShipmentRefused(
                "shipment_exceeds_order",
                f"{sku}: this parcel carries {in_parcel[sku]}, but only {left} of the {ordered[sku]} "
                "ordered have not shipped yet.",
            )
    return [{"sku": sku, "name": names[sku], "quantity": quantity} for sku, quantity in in_parcel.items()]
