"""Shopify's Order as our order: its content (orders/content.py), checked as the API checks
an order, and its state (paid, cancelled, its parcels and refunds)."""

from decimal import Decimal
from typing import Any

from intake.payload_fields import (
    address_shaped,
    count,
    decimal,
    email_address,
    full_name,
    listed,
    locale_offered,
    mapping,
    no_address,
    objects,
    required,
    text,
)
from intake.shapes import PlatformOrder, Unusable
from intake.shopify.edits import content_as_now
from intake.shopify.fields import minor, sku, time
from intake.shopify.gateways import payment_method_words
from intake.shopify.parcels import refund_from_payload, shipment_from_payload
from intake.shopify.payments import payment_of
from orders.content import NAME_TEXT, SHORT_TEXT, line_sku

# Our address's fields (payload_fields.ADDRESS_FIELDS), each as Shopify's MailingAddress names it.
ADDRESS_KEYS = {
    "company": "company",
    "line1": "address1",
    "line2": "address2",
    "postal_code": "zip",
    "city": "city",
    "region": "province",
    "country": "country_code",
    "phone": "phone",
}


def order_from_payload(payload: dict[str, Any]) -> PlatformOrder:
    currency = _currency(payload)
    refunds = [
        refund
        for refund_payload in objects(payload.get("refunds"), "refunds")
        if (refund := refund_from_payload(refund_payload, currency)) is not None
    ]
    content, edit_left_out = content_as_now(payload, _content(payload, currency))
    payment = payment_of(payload, currency, content["total"], refunds)
    return PlatformOrder(
        platform_order_id=str(required(payload, "id")),
        updated_at=time(payload, "updated_at"),
        customer_email=content["customer_email"],
        locale=content.get("locale"),
        content=content,
        paid=payment.paid,
        paid_in_full=payment.paid_in_full,
        received_minor=payment.received_minor,
        payment_unread=payment.payment_unread,
        cancelled=payload.get("cancelled_at") is not None,
        shipments=[
            shipment
            for fulfillment in objects(payload.get("fulfillments"), "fulfillments")
            if (shipment := shipment_from_payload(fulfillment)) is not None
        ],
        refunds=refunds,
        edit_left_out=edit_left_out,
    )


def _content(payload: dict[str, Any], currency: str) -> dict[str, Any]:
    if payload.get("taxes_included") is False and minor(payload, "total_tax", currency) > 0:
        raise Unusable(
            "The order's taxes are added on top of its prices (taxes_included is false): "
            "this service takes orders whose prices include their taxes only, for now."
        )
    lines = [_line(item, currency) for item in objects(required(payload, "line_items"), "line_items")]
    if not lines:
        raise Unusable("The order has no line_items.")
    content: dict[str, Any] = {
        "number": text(required(payload, "name"), SHORT_TEXT, "name"),
        "customer_email": _customer_email(payload),
        "customer_name": _customer_name(payload),
        "currency": currency,
        "lines": lines,
        "shipping_address": _address(payload.get("shipping_address"), "shipping_address"),
        "total": minor(payload, "total_price", currency),
    }
    locale = locale_offered(payload.get("customer_locale"), "customer_locale")
    if locale:
        content["locale"] = locale
    if payload.get("billing_address"):
        content["billing_address"] = _address(payload["billing_address"], "billing_address")
    content.update(_shipping_and_discounts(payload, currency))
    if payload.get("total_tax") is not None:
        content["tax_total"] = minor(payload, "total_tax", currency)
    gateways = [
        str(name) for name in listed(payload.get("payment_gateway_names"), "payment_gateway_names") if name
    ]
    if gateways:
        content["payment_method"] = text(payment_method_words(gateways), NAME_TEXT, "payment_gateway_names")
    return content


def _shipping_and_discounts(payload: dict[str, Any], currency: str) -> dict[str, Any]:
    shipping_lines = objects(payload.get("shipping_lines"), "shipping_lines")
    found: dict[str, Any] = {}
    if shipping_lines:
        method = ", ".join(str(line.get("title") or "") for line in shipping_lines).strip(", ")
        price = sum(minor(line, "price", currency) for line in shipping_lines)
        found["shipping"] = {
            "method": text(method or "Shipping", NAME_TEXT, "shipping_lines[].title"),
            "price": price,
        }
    shipping_discounts = sum(
        minor(allocation, "amount", currency)
        for line in shipping_lines
        for allocation in objects(line.get("discount_allocations"), "shipping_lines[].discount_allocations")
    )
    # What discounts took off the items: the lines' prices less the subtotal after discounts,
    # both Shopify's own figures, so a discount of any kind (code, automatic, per line) counts.
    item_discounts = minor(payload, "total_line_items_price", currency) - minor(
        payload, "subtotal_price", currency
    )
    if item_discounts + shipping_discounts > 0:
        codes = [
            str(code["code"])
            for code in objects(payload.get("discount_codes"), "discount_codes")
            if code.get("code")
        ]
        discount: dict[str, Any] = {"amount": item_discounts + shipping_discounts}
        if codes:
            discount["code"] = text(", ".join(codes), SHORT_TEXT, "discount_codes[].code")
        found["discounts"] = [discount]
    return found


def _line(item: dict[str, Any], currency: str) -> dict[str, Any]:
    quantity = count(required(item, "quantity"), "line_items[].quantity")
    unit_price = minor(item, "price", currency)
    rate = sum(
        (
            decimal(tax.get("rate"), "line_items[].tax_lines[].rate")
            for tax in objects(item.get("tax_lines"), "line_items[].tax_lines")
        ),
        Decimal(0),
    )
    if not 0 <= rate <= 1:
        raise Unusable(
            f"Line {item.get('id')}: its tax rates add up to {rate}, not a fraction between 0 and 1."
        )
    name = item.get("name") or item.get("title") or ""
    if not name:
        raise Unusable(f"Line {item.get('id')} has neither name nor title.")
    return {
        **line_sku(sku(item), shop_gave_sku=bool(item.get("sku"))),
        "name": text(name, NAME_TEXT, "line_items[].name"),
        "quantity": quantity,
        "unit_price": unit_price,
        "total": quantity * unit_price,
        "tax_rate": format(rate.normalize(), "f"),
    }


def _customer_email(payload: dict[str, Any]) -> str:
    customer = mapping(payload.get("customer"), "customer")
    for where, address in (
        ("email", payload.get("email")),
        ("contact_email", payload.get("contact_email")),
        ("customer.email", customer.get("email")),
    ):
        if address:
            return email_address(address, where)
    return email_address(None, "email, contact_email, customer.email")


def _customer_name(payload: dict[str, Any]) -> str:
    where = "billing_address" if payload.get("billing_address") else "shipping_address"
    address = mapping(payload.get(where), where)
    for field, person in (("customer", mapping(payload.get("customer"), "customer")), (where, address)):
        name = full_name(person, field, ("first_name", "last_name"))
        if name:
            return name
    return text(address.get("name") or "", NAME_TEXT, f"{where}.name")


def _address(value: Any, field: str) -> dict[str, Any]:
    address = mapping(value, field)
    if not address:
        raise no_address(field)
    name = address.get("name") or full_name(address, field, ("first_name", "last_name"))
    values = {ours: address.get(theirs) for ours, theirs in ADDRESS_KEYS.items()}
    return address_shaped({"name": name, **values}, field, {"name": "name", **ADDRESS_KEYS})


def _currency(payload: dict[str, Any]) -> str:
    currency = payload.get("presentment_currency") or payload.get("currency")
    if not currency:
        raise Unusable("The order names no currency.")
    return str(currency)
