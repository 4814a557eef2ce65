"""Shopify's Order as our order: its content (orders/content.py), checked as the API checks
an order, and its state (paid, cancelled, its parcels and refunds)."""

from decimal import Decimal
from typing import Any

from intake.payload_fields import (
    address_shaped,
    content_check,
    decimal,
    email_address,
    locale_offered,
    no_address,
    required,
    text,
)
from intake.shapes import PlatformOrder, Unusable
from intake.shopify.fields import minor, sku, time
from intake.shopify.parcels import refund_from_payload, shipment_from_payload
from orders.content import NAME_TEXT, SHORT_TEXT

PAID_STATUSES = frozenset({"paid", "partially_refunded", "refunded"})


def order_from_payload(payload: dict[str, Any]) -> PlatformOrder:
    currency = _currency(payload)
    content = _content(payload, currency)
    content_check(content)
    return PlatformOrder(
        platform_order_id=str(required(payload, "id")),
        updated_at=time(payload, "updated_at"),
        customer_email=content["customer_email"],
        locale=content.get("locale"),
        content=content,
        paid=payload.get("financial_status") in PAID_STATUSES,
        cancelled=payload.get("cancelled_at") is not None,
        shipments=[
            shipment
            for fulfillment in payload.get("fulfillments") or []
            if (shipment := shipment_from_payload(fulfillment)) is not None
        ],
        refunds=[
            refund
            for refund_payload in payload.get("refunds") or []
            if (refund := refund_from_payload(refund_payload, currency)) is not None
        ],
    )


def _content(payload: dict[str, Any], currency: str) -> dict[str, Any]:
    if payload.get("taxes_included") is False and minor(payload, "total_tax", currency) > 0:
        raise Unusable(
            "The order's taxes are added on top of its prices (taxes_included is false): "
            "this service takes orders whose prices include their taxes only, for now."
        )
    lines = [_line(item, currency) for item in required(payload, "line_items")]
    if not lines:
        raise Unusable("The order has no line_items.")
    content: dict[str, Any] = {
        "number": text(required(payload, "name"), SHORT_TEXT),
        "customer_email": _customer_email(payload),
        "customer_name": _customer_name(payload),
        "currency": currency,
        "lines": lines,
        "shipping_address": _address(payload.get("shipping_address"), "shipping_address"),
        "total": minor(payload, "total_price", currency),
    }
    locale = locale_offered(payload.get("customer_locale") or "")
    if locale:
        content["locale"] = locale
    if payload.get("billing_address"):
        content["billing_address"] = _address(payload["billing_address"], "billing_address")
    content.update(_shipping_and_discounts(payload, currency))
    if payload.get("total_tax") is not None:
        content["tax_total"] = minor(payload, "total_tax", currency)
    gateways = [str(name) for name in payload.get("payment_gateway_names") or [] if name]
    if gateways:
        content["payment_method"] = text(", ".join(gateways), NAME_TEXT)
    return content


def _shipping_and_discounts(payload: dict[str, Any], currency: str) -> dict[str, Any]:
    shipping_lines = payload.get("shipping_lines") or []
    found: dict[str, Any] = {}
    if shipping_lines:
        method = ", ".join(str(line.get("title") or "") for line in shipping_lines).strip(", ")
        price = sum(minor(line, "price", currency) for line in shipping_lines)
        found["shipping"] = {"method": text(method or "Shipping", NAME_TEXT), "price": price}
    shipping_discounts = sum(
        minor(allocation, "amount", currency)
        for line in shipping_lines
        for allocation in line.get("discount_allocations") or []
    )
    # What discounts took off the items: the lines' prices less the subtotal after discounts,
    # both Shopify's own figures, so a discount of any kind (code, automatic, per line) counts.
    item_discounts = minor(payload, "total_line_items_price", currency) - minor(
        payload, "subtotal_price", currency
    )
    if item_discounts + shipping_discounts > 0:
        codes = [str(code["code"]) for code in payload.get("discount_codes") or [] if code.get("code")]
        discount: dict[str, Any] = {"amount": item_discounts + shipping_discounts}
        if codes:
            discount["code"] = text(", ".join(codes), SHORT_TEXT)
        found["discounts"] = [discount]
    return found


def _line(item: dict[str, Any], currency: str) -> dict[str, Any]:
    quantity = int(required(item, "quantity"))
    unit_price = minor(item, "price", currency)
    rate = sum(
        (decimal(tax.get("rate"), "tax_lines[].rate") for tax in item.get("tax_lines") or []), Decimal(0)
    )
    if not 0 <= rate <= 1:
        raise Unusable(
            f"Line {item.get('id')}: its tax rates add up to {rate}, not a fraction between 0 and 1."
        )
    name = item.get("name") or item.get("title") or ""
    if not name:
        raise Unusable(f"Line {item.get('id')} has neither name nor title.")
    return {
        "sku": sku(item),
        "name": text(name, NAME_TEXT),
        "quantity": quantity,
        "unit_price": unit_price,
        "total": quantity * unit_price,
        "tax_rate": format(rate.normalize(), "f"),
    }


def _customer_email(payload: dict[str, Any]) -> str:
    customer = payload.get("customer") or {}
    address = payload.get("email") or payload.get("contact_email") or customer.get("email")
    return email_address(address, "email, contact_email, customer.email")


def _customer_name(payload: dict[str, Any]) -> str:
    customer = payload.get("customer") or {}
    address = payload.get("billing_address") or payload.get("shipping_address") or {}
    for first, last in (
        (customer.get("first_name"), customer.get("last_name")),
        (address.get("first_name"), address.get("last_name")),
    ):
        name = " ".join(part for part in (first, last) if part)
        if name:
            return text(name, NAME_TEXT)
    return text(address.get("name") or "", NAME_TEXT)


def _address(address: dict[str, Any] | None, field: str) -> dict[str, Any]:
    if not address:
        raise no_address(field)
    name = address.get("name") or " ".join(
        p for p in (address.get("first_name"), address.get("last_name")) if p
    )
    return address_shaped(
        {
            "name": name,
            "company": address.get("company"),
            "line1": address.get("address1"),
            "line2": address.get("address2"),
            "postal_code": address.get("zip"),
            "city": address.get("city"),
            "region": address.get("province"),
            "country": address.get("country_code"),
            "phone": address.get("phone"),
        },
        field,
    )


def _currency(payload: dict[str, Any]) -> str:
    currency = payload.get("presentment_currency") or payload.get("currency")
    if not currency:
        raise Unusable("The order names no currency.")
    return str(currency)
