"""Saleor's Order, as this service's subscription query selects it (intake/saleor/subscription.py),
as our order: its content, checked as the API checks an order, and its state.

Saleor gives every price with and without its taxes (TaxedMoney): ours include them, so the gross.
A line's price is what the customer pays for it, its discounts included; a discount of the whole
order is its own line when the total is less than the lines and shipping by exactly what its
discounts say, and amounts that do not add up otherwise are not guessed at (content_check).

Its state: paid when Saleor says so (isPaid, or chargeStatus FULL or OVERCHARGED), and then paid
in full, or as much as it charged and gave back (money.py); cancelled with the status CANCELED; each
fulfillment FULFILLED is a parcel that left (Saleor keeps a tracking number, no carrier: its
email says only that the parcel left), its news in its metadata (parcel_news.py); each
successful refund of a transaction (REFUND_SUCCESS), or of a payment of the older payments API
(the order's PAYMENT_REFUNDED events), is a refund."""

import base64
from decimal import Decimal
from typing import Any

from intake.payload_fields import (
    CONTENT_LEFT_OUT,
    address_shaped,
    content_or_why,
    count,
    decimal,
    email_address,
    full_name,
    iso_time,
    locale_offered,
    mapping,
    no_address,
    objects,
    required,
    text,
)
from intake.saleor.money import money_minor, payment_of, refunds_of
from intake.saleor.parcel_news import parcel_news_from_fulfillments
from intake.shapes import PlatformOrder, PlatformShipment, Unusable
from orders.content import NAME_TEXT, SHORT_TEXT, line_sku

# Our address's fields (payload_fields.ADDRESS_FIELDS), each as Saleor's Address names it.
ADDRESS_KEYS = {
    "company": "companyName",
    "line1": "streetAddress1",
    "line2": "streetAddress2",
    "postal_code": "postalCode",
    "city": "city",
    "region": "countryArea",
    "country": "country.code",
    "phone": "phone",
}


def order_from_payload(payload: dict[str, Any]) -> PlatformOrder:
    order = payload.get("order")
    if not isinstance(order, dict):
        raise Unusable(
            "The delivery carries no order: the webhook's subscription query must be this "
            "service's (the shop's page in the admin shows it)."
        )
    currency = str(required(mapping(required(order, "total"), "total"), "currency"))
    content, refused = content_or_why(lambda: _content(order, currency))
    refunds = refunds_of(order, currency)
    payment = payment_of(order, currency, refunds)
    fulfillments = objects(order.get("fulfillments"), "fulfillments")
    fulfilled = [fulfillment for fulfillment in fulfillments if fulfillment.get("status") == "FULFILLED"]
    news, news_left_out = parcel_news_from_fulfillments(fulfilled)
    return PlatformOrder(
        platform_order_id=str(required(order, "id")),
        updated_at=iso_time(required(order, "updatedAt"), "updatedAt"),
        customer_email=content["customer_email"] if content else "",
        locale=content.get("locale") if content else None,
        content=content,
        content_refused=refused,
        edit_left_out=f"{CONTENT_LEFT_OUT}: {refused}" if refused else "",
        paid=payment.paid,
        paid_in_full=payment.paid_in_full,
        received_minor=payment.received_minor,
        payment_unread=payment.payment_unread,
        cancelled=order.get("status") == "CANCELED",
        shipments=[_shipment(fulfillment) for fulfillment in fulfilled],
        refunds=refunds,
        parcel_news=news,
        parcel_news_left_out=news_left_out,
    )


def _content(order: dict[str, Any], currency: str) -> dict[str, Any]:
    lines = [_line(line, currency) for line in objects(required(order, "lines"), "lines")]
    if not lines:
        raise Unusable("The order has no lines.")
    billing = mapping(order.get("billingAddress"), "billingAddress")
    shipping_address = mapping(order.get("shippingAddress"), "shippingAddress")
    named = "billingAddress" if billing else "shippingAddress"
    total = mapping(required(order, "total"), "total")
    content: dict[str, Any] = {
        "number": text(required(order, "number"), SHORT_TEXT, "number"),
        "customer_email": email_address(order.get("userEmail"), "userEmail"),
        "customer_name": full_name(billing or shipping_address, named, ("firstName", "lastName")),
        "currency": currency,
        "lines": lines,
        "shipping_address": _address(shipping_address, "shippingAddress"),
        "total": money_minor(total.get("gross"), "total.gross", currency),
        "tax_total": money_minor(total.get("tax"), "total.tax", currency),
    }
    locale = locale_offered(order.get("languageCodeEnum"), "languageCodeEnum")
    if locale:
        content["locale"] = locale
    if billing:
        content["billing_address"] = _address(billing, "billingAddress")
    shipping_gross = mapping(order.get("shippingPrice"), "shippingPrice").get("gross") or {"amount": 0}
    shipping_price = money_minor(shipping_gross, "shippingPrice.gross", currency)
    if order.get("shippingMethodName") or shipping_price:
        content["shipping"] = {
            "method": text(order.get("shippingMethodName") or "Shipping", NAME_TEXT, "shippingMethodName"),
            "price": shipping_price,
        }
    discounts = _order_discounts(order, currency, content)
    if discounts:
        content["discounts"] = discounts
    transactions = objects(order.get("transactions"), "transactions")
    methods = sorted({str(t["name"]) for t in transactions if t.get("name")})
    if methods:
        content["payment_method"] = text(", ".join(methods), NAME_TEXT, "transactions[].name")
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
        (money_minor(d.get("total"), "discounts[].total", currency), str(d.get("name") or ""))
        for d in objects(order.get("discounts"), "discounts")
    ]
    found = [(amount, name) for amount, name in found if amount > 0]
    if gap <= 0 or sum(amount for amount, _ in found) != gap:
        return []
    shown: list[dict[str, Any]] = []
    for index, (amount, name) in enumerate(found):
        entry: dict[str, Any] = {"amount": amount}
        if name:
            entry["description"] = text(name, NAME_TEXT, "discounts[].name")
        if index == 0 and order.get("voucherCode"):
            entry["code"] = text(order["voucherCode"], SHORT_TEXT, "voucherCode")
        shown.append(entry)
    return shown


def _line(line: dict[str, Any], currency: str) -> dict[str, Any]:
    quantity = count(required(line, "quantity"), "lines[].quantity")
    if quantity <= 0:
        raise Unusable(f"Line {line.get('id')}: quantity {quantity}.")
    unit_price = money_minor(
        mapping(required(line, "unitPrice"), "lines[].unitPrice").get("gross"),
        "lines[].unitPrice.gross",
        currency,
    )
    total = money_minor(
        mapping(required(line, "totalPrice"), "lines[].totalPrice").get("gross"),
        "lines[].totalPrice.gross",
        currency,
    )
    if total != unit_price * quantity:
        raise Unusable(
            f"Line {line.get('id')}: {quantity} x {unit_price} is not its total {total} (minor units): "
            "the unit price cannot be shown."
        )
    rate = decimal(line.get("taxRate") or 0, "lines[].taxRate")
    if not 0 <= rate <= 1:
        raise Unusable(f"Line {line.get('id')}: its tax rate {rate} is not a fraction between 0 and 1.")
    name = text(required(line, "productName"), NAME_TEXT, "lines[].productName")
    if line.get("variantName"):
        name = f"{name} ({text(line['variantName'], NAME_TEXT, 'lines[].variantName')})"
    return {
        **line_sku(_sku(line), shop_gave_sku=bool(line.get("productSku"))),
        "name": text(name, NAME_TEXT, "lines[].productName"),
        "quantity": quantity,
        "unit_price": unit_price,
        "total": total,
        "tax_rate": format(Decimal(rate).normalize(), "f"),
    }


def _shipment(fulfillment: dict[str, Any]) -> PlatformShipment:
    return PlatformShipment(
        shipment_id=str(required(fulfillment, "id")),
        carrier="",
        tracking_number=text(
            fulfillment.get("trackingNumber") or "", SHORT_TEXT, "fulfillments[].trackingNumber"
        ),
        lines=[
            {
                "sku": _sku(mapping(required(item, "orderLine"), "fulfillments[].lines[].orderLine")),
                "quantity": count(required(item, "quantity"), "fulfillments[].lines[].quantity"),
            }
            for item in objects(fulfillment.get("lines"), "fulfillments[].lines")
        ],
    )


def _sku(line: dict[str, Any]) -> str:
    """The SKU, or the line's own id where the product has none (Saleor's SKU is optional):
    its key, not its global id (the base64 of "OrderLine:<uuid>", too long to keep whole)."""
    if line.get("productSku"):
        return text(line["productSku"], SHORT_TEXT, "lines[].productSku")
    line_id = str(required(line, "id"))
    try:
        type_name, _, key = base64.b64decode(line_id, validate=True).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        type_name, key = "", ""
    return text(f"item-{key if type_name == 'OrderLine' and key else line_id}", SHORT_TEXT, "lines[].id")


def _address(value: Any, field: str) -> dict[str, Any]:
    address = mapping(value, field)
    if not address.get("streetAddress1"):
        raise no_address(field)
    values = {ours: address.get(theirs) for ours, theirs in ADDRESS_KEYS.items() if ours != "country"}
    country = mapping(address.get("country"), f"{field}.country").get("code")
    name = full_name(address, field, ("firstName", "lastName"))
    return address_shaped({"name": name, "country": country, **values}, field, ADDRESS_KEYS)
