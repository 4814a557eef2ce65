"""WooCommerce's order (the REST API's v3 order, as its webhooks send it) as our order.

WooCommerce keeps every line, shipping and discount amount without tax, with its tax beside it
(`subtotal` and `subtotal_tax`, `shipping_total` and `shipping_tax`, `discount_total` and
`discount_tax`), also when the shop's prices include tax: an order in our words, whose prices
include their taxes, adds the two. An order whose prices do not include tax and has tax is not
taken yet, as for Shopify.

Its state: paid once `date_paid_gmt` is set or its status is processing or completed (not by the
status refunded, which refunds set: a refund proves no payment), and how much (payments.py);
cancelled with the status cancelled; a completed order has left in one parcel (as the Shipment
Tracking extension's `_wc_shipment_tracking_items` says, if installed); each of its `refunds` is
a refund; the TrackShip plugin's status of the parcel is its news (parcel_news.py)."""

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
    mapping,
    no_address,
    objects,
    required,
    text,
    to_minor,
)
from intake.shapes import PlatformOrder, PlatformRefund, PlatformShipment, Unusable
from intake.woocommerce.parcel_news import parcel_news_from_payload
from intake.woocommerce.payments import payment_of
from orders.content import NAME_TEXT, SHORT_TEXT, line_sku

# The statuses of an order that has left: WooCommerce's own, and "delivered", which TrackShip
# (and Advanced Shipment Tracking) may give a completed order once its parcel arrived. Its save
# may reach us before the "completed" one (WooCommerce keeps no order between deliveries), and
# the older save then changes nothing: the parcel must be recorded from either.
SHIPPED_STATUSES = frozenset({"completed", "delivered"})
TRACKING_ITEMS = "_wc_shipment_tracking_items"
# Our address's fields (payload_fields.ADDRESS_FIELDS), each as WooCommerce's address names it.
ADDRESS_KEYS = {
    "company": "company",
    "line1": "address_1",
    "line2": "address_2",
    "postal_code": "postcode",
    "city": "city",
    "region": "state",
    "country": "country",
    "phone": "phone",
}


def order_from_payload(payload: dict[str, Any]) -> PlatformOrder:
    currency = str(required(payload, "currency"))
    content, refused = content_or_why(lambda: _content(payload, currency))
    status = text(payload.get("status") or "", SHORT_TEXT, "status")
    refunds = [
        PlatformRefund(
            refund_id=str(required(refund, "id")),
            amount_minor=abs(to_minor(required(refund, "total"), "refunds[].total", currency)),
            reason=text(refund.get("reason") or "", NAME_TEXT, "refunds[].reason"),
        )
        for refund in objects(payload.get("refunds"), "refunds")
    ]
    payment = payment_of(payload, status, refunds)
    updated_at = iso_time(required(payload, "date_modified_gmt"), "date_modified_gmt", naive_is_utc=True)
    news, news_left_out = parcel_news_from_payload(payload, _shipment_id(payload), updated_at)
    return PlatformOrder(
        platform_order_id=str(required(payload, "id")),
        updated_at=updated_at,
        customer_email=content["customer_email"] if content else "",
        locale=None,  # WooCommerce does not say the customer's language: the site's
        content=content,
        content_refused=refused,
        edit_left_out=f"{CONTENT_LEFT_OUT}: {refused}" if refused else "",
        paid=payment.paid,
        paid_in_full=payment.paid_in_full,
        received_minor=payment.received_minor,
        payment_unread=payment.payment_unread,
        refunded_in_full=payment.refunded_in_full,
        # A refund may be recorded by hand ("Refund manually", no gateway), and the order's
        # `refunds` do not say how it went (`refunded_payment` is only in the refunds' endpoint),
        # whatever the `payment_method`: none proves that its money came in.
        refunds_prove_payment=False,
        cancelled=status == "cancelled",
        shipments=_shipments(payload) if status in SHIPPED_STATUSES else [],
        refunds=refunds,
        parcel_news=news,
        parcel_news_left_out=news_left_out,
    )


def _content(payload: dict[str, Any], currency: str) -> dict[str, Any]:
    def gross(obj: dict[str, Any], amount: str, tax: str) -> int:
        return to_minor(obj.get(amount) or 0, amount, currency) + to_minor(obj.get(tax) or 0, tax, currency)

    _not_taken_yet(payload, currency)
    # By the rate's id, as text: an id of another type must not fail the look-up.
    rates = {
        str(tax.get("rate_id")): tax.get("rate_percent")
        for tax in objects(payload.get("tax_lines"), "tax_lines")
    }
    lines = [_line(item, currency, rates) for item in objects(required(payload, "line_items"), "line_items")]
    if not lines:
        raise Unusable("The order has no line_items.")
    billing = mapping(payload.get("billing"), "billing")
    content: dict[str, Any] = {
        "number": text(required(payload, "number"), SHORT_TEXT, "number"),
        "customer_email": email_address(billing.get("email"), "billing.email"),
        "customer_name": full_name(billing, "billing", ("first_name", "last_name")),
        "currency": currency,
        "lines": lines,
        "shipping_address": _address(payload.get("shipping"), "shipping"),
        "total": to_minor(required(payload, "total"), "total", currency),
        "tax_total": to_minor(payload.get("total_tax") or 0, "total_tax", currency),
    }
    if billing.get("address_1"):
        content["billing_address"] = _address(billing, "billing")
    shipping_lines = objects(payload.get("shipping_lines"), "shipping_lines")
    if shipping_lines:
        method = ", ".join(str(line.get("method_title") or "") for line in shipping_lines).strip(", ")
        content["shipping"] = {
            "method": text(method or "Shipping", NAME_TEXT, "shipping_lines[].method_title"),
            "price": gross(payload, "shipping_total", "shipping_tax"),
        }
    discount = gross(payload, "discount_total", "discount_tax")
    if discount > 0:
        coupons = objects(payload.get("coupon_lines"), "coupon_lines")
        codes = [str(coupon["code"]) for coupon in coupons if coupon.get("code")]
        code = {"code": text(", ".join(codes), SHORT_TEXT, "coupon_lines[].code")} if codes else {}
        content["discounts"] = [{"amount": discount, **code}]
    if payload.get("payment_method_title"):
        content["payment_method"] = text(payload["payment_method_title"], NAME_TEXT, "payment_method_title")
    return content


def _not_taken_yet(payload: dict[str, Any], currency: str) -> None:
    if not payload.get("prices_include_tax") and to_minor(
        payload.get("total_tax") or 0, "total_tax", currency
    ):
        raise Unusable(
            "The order's taxes are added on top of its prices (prices_include_tax is false): "
            "this service takes orders whose prices include their taxes only, for now."
        )
    if any(
        to_minor(fee.get("total") or 0, "fee_lines[].total", currency)
        for fee in objects(payload.get("fee_lines"), "fee_lines")
    ):
        raise Unusable(
            "The order has fees (fee_lines): an order of lines, shipping and discounts only, for now."
        )


def _line(item: dict[str, Any], currency: str, rates: dict[str, Any]) -> dict[str, Any]:
    quantity = count(required(item, "quantity"), "line_items[].quantity")
    if quantity <= 0:
        raise Unusable(f"Line {item.get('id')}: quantity {quantity}.")
    subtotal = to_minor(required(item, "subtotal"), "line_items[].subtotal", currency)
    line_gross = subtotal + to_minor(item.get("subtotal_tax") or 0, "line_items[].subtotal_tax", currency)
    if line_gross % quantity:
        raise Unusable(
            f"Line {item.get('id')}: {quantity} cost {line_gross} minor units with tax, not a whole "
            "amount each: the unit price cannot be shown."
        )
    percent = sum(
        (
            decimal(rates.get(str(tax.get("id"))) or 0, "tax_lines[].rate_percent")
            for tax in objects(item.get("taxes"), "line_items[].taxes")
            if tax.get("total") not in (None, "", "0", "0.00")
        ),
        Decimal(0),
    )
    return {
        **line_sku(
            text(item.get("sku") or f"item-{required(item, 'id')}", SHORT_TEXT, "line_items[].sku"),
            shop_gave_sku=bool(item.get("sku")),
        ),
        "name": text(required(item, "name"), NAME_TEXT, "line_items[].name"),
        "quantity": quantity,
        "unit_price": line_gross // quantity,
        "total": line_gross,
        "tax_rate": format((percent / 100).normalize(), "f"),
    }


def _shipments(payload: dict[str, Any]) -> list[PlatformShipment]:
    """A completed order has left, all of it in one parcel, carried as the Shipment Tracking
    extension's first item says (a parcel without one names no carrier). WooCommerce does not
    say which lines went in which of several tracked parcels: one email tells the first."""
    tracked = next(
        (
            meta.get("value")
            for meta in objects(payload.get("meta_data"), "meta_data")
            if meta.get("key") == TRACKING_ITEMS
        ),
        None,
    )
    item = tracked[0] if isinstance(tracked, list) and tracked and isinstance(tracked[0], dict) else {}
    return [
        PlatformShipment(
            shipment_id=_shipment_id(payload),
            carrier=text(
                item.get("custom_tracking_provider") or item.get("tracking_provider") or "",
                SHORT_TEXT,
                f"meta_data {TRACKING_ITEMS}[0].tracking_provider",
            ),
            tracking_number=text(
                item.get("tracking_number") or "",
                SHORT_TEXT,
                f"meta_data {TRACKING_ITEMS}[0].tracking_number",
            ),
            tracking_url=str(item.get("custom_tracking_link") or ""),  # checked where it is applied
        )
    ]


def _shipment_id(payload: dict[str, Any]) -> str:
    """The id of an order's one parcel: WooCommerce has none of its own."""
    return f"completed-{required(payload, 'id')}"


def _address(value: Any, field: str) -> dict[str, Any]:
    address = mapping(value, field)
    if not address.get("address_1"):
        raise no_address(field)
    name = full_name(address, field, ("first_name", "last_name"))
    values = {ours: address.get(theirs) for ours, theirs in ADDRESS_KEYS.items()}
    return address_shaped({"name": name, **values}, field, ADDRESS_KEYS)
