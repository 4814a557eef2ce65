"""Saleor's Order, as this service's subscription query selects it (intake/saleor/subscription.py),
as our order: its content, checked as the API checks an order, and its state.

Saleor gives every price with and without its taxes (TaxedMoney): an order in our words, whose
prices include their taxes, takes the gross. A line's price is what the customer pays for it,
discounts of the line included; a discount of the whole order is shown as its own line when the
order's total is less than its lines and shipping by exactly what its discounts say, and an order
whose amounts do not add up otherwise is not guessed at (content_check names the mismatch).

Its state: paid when Saleor says so (isPaid, or chargeStatus FULL or OVERCHARGED) or once money
went back; cancelled with the status CANCELED; each fulfillment FULFILLED is a parcel that left
(Saleor keeps a tracking number, no carrier: its email says only that the parcel left); each
successful refund of a transaction (REFUND_SUCCESS), or of a payment of the older payments API
(the order's PAYMENT_REFUNDED events), is a refund."""

import base64
from decimal import Decimal
from typing import Any

from intake.payload_fields import (
    address_shaped,
    content_check,
    decimal,
    email_address,
    iso_time,
    locale_offered,
    no_address,
    required,
    text,
    to_minor,
)
from intake.shapes import PlatformOrder, PlatformRefund, PlatformShipment, Unusable
from orders.content import NAME_TEXT, SHORT_TEXT

PAID_CHARGE_STATUSES = frozenset({"FULL", "OVERCHARGED"})


def order_from_payload(payload: dict[str, Any]) -> PlatformOrder:
    order = payload.get("order")
    if not isinstance(order, dict):
        raise Unusable(
            "The delivery carries no order: the webhook's subscription query must be this "
            "service's (the shop's page in the admin shows it)."
        )
    currency = str(required(required(order, "total"), "currency"))
    content = _content(order, currency)
    content_check(content)
    refunds = _refunds(order, currency)
    return PlatformOrder(
        platform_order_id=str(required(order, "id")),
        updated_at=iso_time(required(order, "updatedAt"), "updatedAt"),
        customer_email=content["customer_email"],
        locale=content.get("locale"),
        content=content,
        paid=bool(order.get("isPaid")) or order.get("chargeStatus") in PAID_CHARGE_STATUSES or bool(refunds),
        cancelled=order.get("status") == "CANCELED",
        shipments=[_shipment(f) for f in order.get("fulfillments") or [] if f.get("status") == "FULFILLED"],
        refunds=refunds,
    )


def _content(order: dict[str, Any], currency: str) -> dict[str, Any]:
    lines = [_line(line, currency) for line in required(order, "lines")]
    if not lines:
        raise Unusable("The order has no lines.")
    billing, shipping_address = order.get("billingAddress"), order.get("shippingAddress")
    total = required(order, "total")
    content: dict[str, Any] = {
        "number": text(required(order, "number"), SHORT_TEXT),
        "customer_email": email_address(order.get("userEmail"), "userEmail"),
        "customer_name": text(_name(billing or shipping_address or {}), NAME_TEXT),
        "currency": currency,
        "lines": lines,
        "shipping_address": _address(shipping_address, "shippingAddress"),
        "total": _money(total.get("gross"), "total.gross", currency),
        "tax_total": _money(total.get("tax"), "total.tax", currency),
    }
    locale = locale_offered(str(order.get("languageCodeEnum") or ""))
    if locale:
        content["locale"] = locale
    if billing:
        content["billing_address"] = _address(billing, "billingAddress")
    shipping_gross = (order.get("shippingPrice") or {}).get("gross") or {"amount": 0}
    shipping_price = _money(shipping_gross, "shippingPrice.gross", currency)
    if order.get("shippingMethodName") or shipping_price:
        content["shipping"] = {
            "method": text(order.get("shippingMethodName") or "Shipping", NAME_TEXT),
            "price": shipping_price,
        }
    discounts = _order_discounts(order, currency, content)
    if discounts:
        content["discounts"] = discounts
    methods = sorted({str(t["name"]) for t in order.get("transactions") or [] if t.get("name")})
    if methods:
        content["payment_method"] = text(", ".join(methods), NAME_TEXT)
    return content


def _order_discounts(order: dict[str, Any], currency: str, content: dict[str, Any]) -> list[dict[str, Any]]:
    """The order's discounts as lines of their own, when they are what its total lacks of its
    lines and shipping; none when the lines' prices already hold them."""
    gap = (
        sum(line["total"] for line in content["lines"])
        + (content["shipping"]["price"] if content.get("shipping") else 0)
        - content["total"]
    )
    found = [
        (_money(d.get("total"), "discounts[].total", currency), str(d.get("name") or ""))
        for d in order.get("discounts") or []
    ]
    found = [(amount, name) for amount, name in found if amount > 0]
    if gap <= 0 or sum(amount for amount, _ in found) != gap:
        return []
    shown: list[dict[str, Any]] = []
    for index, (amount, name) in enumerate(found):
        entry: dict[str, Any] = {"amount": amount}
        if name:
            entry["description"] = text(name, NAME_TEXT)
        if index == 0 and order.get("voucherCode"):
            entry["code"] = text(order["voucherCode"], SHORT_TEXT)
        shown.append(entry)
    return shown


def _line(line: dict[str, Any], currency: str) -> dict[str, Any]:
    quantity = int(required(line, "quantity"))
    if quantity <= 0:
        raise Unusable(f"Line {line.get('id')}: quantity {quantity}.")
    unit_price = _money((required(line, "unitPrice")).get("gross"), "lines[].unitPrice.gross", currency)
    total = _money((required(line, "totalPrice")).get("gross"), "lines[].totalPrice.gross", currency)
    if total != unit_price * quantity:
        raise Unusable(
            f"Line {line.get('id')}: {quantity} x {unit_price} is not its total {total} (minor units): "
            "the unit price cannot be shown."
        )
    rate = decimal(line.get("taxRate") or 0, "lines[].taxRate")
    if not 0 <= rate <= 1:
        raise Unusable(f"Line {line.get('id')}: its tax rate {rate} is not a fraction between 0 and 1.")
    name = str(required(line, "productName"))
    if line.get("variantName"):
        name = f"{name} ({line['variantName']})"
    return {
        "sku": _sku(line),
        "name": text(name, NAME_TEXT),
        "quantity": quantity,
        "unit_price": unit_price,
        "total": total,
        "tax_rate": format(Decimal(rate).normalize(), "f"),
    }


def _shipment(fulfillment: dict[str, Any]) -> PlatformShipment:
    return PlatformShipment(
        shipment_id=str(required(fulfillment, "id")),
        carrier="",
        tracking_number=text(fulfillment.get("trackingNumber") or "", SHORT_TEXT),
        lines=[
            {"sku": _sku(required(item, "orderLine")), "quantity": int(required(item, "quantity"))}
            for item in fulfillment.get("lines") or []
        ],
    )


def _refunds(order: dict[str, Any], currency: str) -> list[PlatformRefund]:
    refunds = [
        PlatformRefund(
            refund_id=str(required(event, "id")),
            amount_minor=_money(event.get("amount"), "transactions[].events[].amount", currency),
            reason=text(event.get("message") or "", NAME_TEXT),
        )
        for transaction in order.get("transactions") or []
        for event in transaction.get("events") or []
        if event.get("type") == "REFUND_SUCCESS"
    ]
    refunds += [
        PlatformRefund(
            refund_id=str(required(event, "id")),
            amount_minor=to_minor(required(event, "amount"), "events[].amount", currency),
        )
        for event in order.get("events") or []
        if event.get("type") == "PAYMENT_REFUNDED"
    ]
    return [refund for refund in refunds if refund.amount_minor > 0]


def _money(money: Any, field: str, currency: str) -> int:
    if not isinstance(money, dict) or money.get("amount") is None:
        raise Unusable(f"The payload has no {field}.amount.")
    return to_minor(money["amount"], field, currency)


def _sku(line: dict[str, Any]) -> str:
    """The SKU, or the line's own id where the product has none (Saleor's SKU is optional):
    its key, not its global id (the base64 of "OrderLine:<uuid>", too long to keep whole)."""
    if line.get("productSku"):
        return text(line["productSku"], SHORT_TEXT)
    line_id = str(required(line, "id"))
    try:
        type_name, _, key = base64.b64decode(line_id, validate=True).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        type_name, key = "", ""
    return text(f"item-{key if type_name == 'OrderLine' and key else line_id}", SHORT_TEXT)


def _name(person: dict[str, Any]) -> str:
    return " ".join(part for part in (person.get("firstName"), person.get("lastName")) if part)


def _address(address: dict[str, Any] | None, field: str) -> dict[str, Any]:
    if not address or not address.get("streetAddress1"):
        raise no_address(field)
    return address_shaped(
        {
            "name": _name(address),
            "company": address.get("companyName"),
            "line1": address.get("streetAddress1"),
            "line2": address.get("streetAddress2"),
            "postal_code": address.get("postalCode"),
            "city": address.get("city"),
            "region": address.get("countryArea"),
            "country": (address.get("country") or {}).get("code"),
            "phone": address.get("phone"),
        },
        field,
    )
