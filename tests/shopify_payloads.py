"""Shopify webhook deliveries as Shopify sends them, for the intake's tests.

Shaped as the REST Admin API resources that Shopify's webhooks carry, field for field as
shopify.dev documents them: the Order (webhook topics `orders/create`, `orders/updated`,
`orders/paid`, `orders/cancelled`; shopify.dev/docs/api/admin-rest/latest/resources/order and
the topic's example payload in shopify.dev/docs/api/webhooks), the Fulfillment
(`fulfillments/create`; .../resources/fulfillment) and the Refund (`refunds/create`;
.../resources/refund). Amounts are decimal strings, with `*_set` in shop and presentment money;
the headers are those of shopify.dev/docs/apps/build/webhooks/delivery-structure."""

import base64
import copy
import hashlib
import hmac
import json
import uuid
from typing import Any

SHOP_DOMAIN = "tea-house.myshopify.com"
# Made here, not written: a tracked file holds no literal secret (tests/unit/secret_scan.py).
CLIENT_SECRET = hashlib.sha256(b"the tests Shopify app").hexdigest()[:38]
ORDER_ID = 5940139491234
LINE_TEA = 13737712001234
LINE_POT = 13737712005678


def money_set(amount: str, currency: str = "EUR") -> dict[str, Any]:
    return {
        "shop_money": {"amount": amount, "currency_code": currency},
        "presentment_money": {"amount": amount, "currency_code": currency},
    }


def _address() -> dict[str, Any]:
    return {
        "first_name": "Ada",
        "last_name": "Lovelace",
        "name": "Ada Lovelace",
        "company": None,
        "address1": "Unter den Linden 1",
        "address2": "",
        "city": "Berlin",
        "zip": "10117",
        "province": None,
        "province_code": None,
        "country": "Germany",
        "country_code": "DE",
        "phone": None,
        "latitude": 52.5170365,
        "longitude": 13.3888599,
    }


def _line(line_id: int, *, title: str, variant: str, sku: str, quantity: int, price: str, tax: str) -> dict:
    return {
        "id": line_id,
        "admin_graphql_api_id": f"gid://shopify/LineItem/{line_id}",
        "variant_id": line_id + 1000,
        "product_id": line_id + 2000,
        "title": title,
        "variant_title": variant,
        "name": f"{title} - {variant}" if variant else title,
        "sku": sku,
        "vendor": "Tea House",
        "quantity": quantity,
        "current_quantity": quantity,
        "fulfillable_quantity": quantity,
        "fulfillment_status": None,
        "requires_shipping": True,
        "taxable": True,
        "gift_card": False,
        "price": price,
        "price_set": money_set(price),
        "total_discount": "0.00",
        "total_discount_set": money_set("0.00"),
        "discount_allocations": [],
        "tax_lines": [{"title": "DE MwSt", "rate": 0.19, "price": tax, "price_set": money_set(tax)}],
        "properties": [],
        "grams": 250,
    }


ORDER: dict[str, Any] = {
    "id": ORDER_ID,
    "admin_graphql_api_id": f"gid://shopify/Order/{ORDER_ID}",
    "name": "#1001",
    "order_number": 1001,
    "number": 1,
    "email": "ada@example.com",
    "contact_email": "ada@example.com",
    "phone": None,
    "created_at": "2026-11-30T10:30:00+01:00",
    "updated_at": "2026-11-30T10:30:05+01:00",
    "processed_at": "2026-11-30T10:30:00+01:00",
    "cancelled_at": None,
    "cancel_reason": None,
    "closed_at": None,
    "confirmed": True,
    "test": False,
    "currency": "EUR",
    "presentment_currency": "EUR",
    "customer_locale": "en-DE",
    "financial_status": "paid",
    "fulfillment_status": None,
    "taxes_included": True,
    "total_line_items_price": "59.80",
    "total_line_items_price_set": money_set("59.80"),
    "total_discounts": "5.00",
    "total_discounts_set": money_set("5.00"),
    "subtotal_price": "54.80",
    "subtotal_price_set": money_set("54.80"),
    "total_shipping_price_set": money_set("4.90"),
    "total_tax": "9.53",
    "total_tax_set": money_set("9.53"),
    "total_price": "59.70",
    "total_price_set": money_set("59.70"),
    "discount_codes": [{"code": "WELCOME5", "amount": "5.00", "type": "fixed_amount"}],
    "payment_gateway_names": ["shopify_payments"],
    "line_items": [
        _line(
            LINE_TEA,
            title="Green tea",
            variant="100 g",
            sku="TEA-GREEN",
            quantity=2,
            price="12.90",
            tax="4.12",
        ),
        _line(LINE_POT, title="Teapot", variant="", sku="POT-1", quantity=1, price="34.00", tax="5.43"),
    ],
    "shipping_lines": [
        {
            "id": 4312345678,
            "title": "DHL Paket",
            "code": "DHL",
            "source": "shopify",
            "price": "4.90",
            "price_set": money_set("4.90"),
            "discounted_price": "4.90",
            "discounted_price_set": money_set("4.90"),
            "discount_allocations": [],
            "tax_lines": [
                {"title": "DE MwSt", "rate": 0.19, "price": "0.78", "price_set": money_set("0.78")}
            ],
        }
    ],
    "shipping_address": _address(),
    "billing_address": _address(),
    "customer": {
        "id": 7012345678,
        "email": "ada@example.com",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "state": "enabled",
        "verified_email": True,
        "currency": "EUR",
    },
    "fulfillments": [],
    "refunds": [],
}

FULFILLMENT: dict[str, Any] = {
    "id": 4451234001,
    "admin_graphql_api_id": "gid://shopify/Fulfillment/4451234001",
    "order_id": ORDER_ID,
    "name": "#1001.1",
    "status": "success",
    "service": "manual",
    "shipment_status": None,
    "created_at": "2026-12-01T09:00:00+01:00",
    "updated_at": "2026-12-01T09:00:00+01:00",
    "location_id": 655441491,
    "tracking_company": "DHL",
    "tracking_number": "00340434161234567890",
    "tracking_numbers": ["00340434161234567890"],
    "tracking_url": "https://www.dhl.de/de/privatkunden.html?piececode=00340434161234567890",
    "tracking_urls": ["https://www.dhl.de/de/privatkunden.html?piececode=00340434161234567890"],
    "receipt": {},
    "line_items": [
        _line(
            LINE_TEA,
            title="Green tea",
            variant="100 g",
            sku="TEA-GREEN",
            quantity=2,
            price="12.90",
            tax="4.12",
        )
    ],
}

REFUND: dict[str, Any] = {
    "id": 9012345001,
    "admin_graphql_api_id": "gid://shopify/Refund/9012345001",
    "order_id": ORDER_ID,
    "created_at": "2026-12-02T12:00:00+01:00",
    "processed_at": "2026-12-02T12:00:00+01:00",
    "note": "One bag arrived torn",
    "restock": True,
    "user_id": 548380009,
    "order_adjustments": [],
    "refund_line_items": [
        {
            "id": 104689539,
            "line_item_id": LINE_TEA,
            "quantity": 1,
            "restock_type": "return",
            "location_id": 655441491,
            "subtotal": 12.9,
            "subtotal_set": money_set("12.90"),
            "total_tax": 2.06,
            "total_tax_set": money_set("2.06"),
            "line_item": _line(
                LINE_TEA,
                title="Green tea",
                variant="100 g",
                sku="TEA-GREEN",
                quantity=2,
                price="12.90",
                tax="4.12",
            ),
        }
    ],
    "transactions": [
        {
            "id": 389404469,
            "order_id": ORDER_ID,
            "kind": "refund",
            "gateway": "shopify_payments",
            "status": "success",
            "amount": "12.90",
            "currency": "EUR",
            "parent_id": 389404468,
            "test": False,
        }
    ],
}


# A FulfillmentEvent of FULFILLMENT, as `fulfillment_events/create` sends it (the REST resource;
# Shopify's own fixtures in shopify-api-ruby and shopify-api-js have these fields).
FULFILLMENT_EVENT: dict[str, Any] = {
    "id": 944956395,
    "fulfillment_id": FULFILLMENT["id"],
    "order_id": ORDER_ID,
    "shop_id": 690933842,
    "status": "out_for_delivery",
    "message": "With the courier",
    "happened_at": "2026-12-02T08:12:00+01:00",
    "created_at": "2026-12-02T08:13:01+01:00",
    "updated_at": "2026-12-02T08:13:01+01:00",
    "estimated_delivery_at": None,
    "city": "Berlin",
    "province": None,
    "country": "Germany",
    "zip": "10115",
    "address1": None,
    "latitude": None,
    "longitude": None,
    "admin_graphql_api_id": "gid://shopify/FulfillmentEvent/944956395",
}


def fulfillment_event(**changes: Any) -> dict[str, Any]:
    """A FulfillmentEvent of FULFILLMENT, with fields changed."""
    return copy.deepcopy(FULFILLMENT_EVENT) | changes


def order(**changes: Any) -> dict[str, Any]:
    """The order, with top-level fields changed."""
    return copy.deepcopy(ORDER) | changes


def signed_headers(
    body: bytes,
    *,
    topic: str,
    event_id: str | None = None,
    secret: str = CLIENT_SECRET,
    domain: str = SHOP_DOMAIN,
) -> dict[str, str]:
    """The headers of a delivery, as Django's test client takes them (HTTP_ prefixed)."""
    signature = base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
    return {
        "HTTP_X_SHOPIFY_HMAC_SHA256": signature,
        "HTTP_X_SHOPIFY_TOPIC": topic,
        "HTTP_X_SHOPIFY_SHOP_DOMAIN": domain,
        "HTTP_X_SHOPIFY_API_VERSION": "2026-10",
        "HTTP_X_SHOPIFY_WEBHOOK_ID": str(uuid.uuid4()),
        "HTTP_X_SHOPIFY_EVENT_ID": event_id or str(uuid.uuid4()),
        "HTTP_X_SHOPIFY_TRIGGERED_AT": "2026-11-30T09:30:05.123Z",
    }


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


# The mandatory privacy webhooks, as shopify.dev/docs/apps/build/privacy-law-compliance shows
# their payloads: `customers/data_request`, `customers/redact` and `shop/redact`.
CUSTOMER_REDACT = {
    "shop_id": 954889,
    "shop_domain": SHOP_DOMAIN,
    "customer": {"id": 191167, "email": "ada@example.com", "phone": "555-625-1199"},
    "orders_to_redact": [ORDER_ID],
}
SHOP_REDACT = {"shop_id": 954889, "shop_domain": SHOP_DOMAIN}
CUSTOMER_DATA_REQUEST = {
    "shop_id": 954889,
    "shop_domain": SHOP_DOMAIN,
    "orders_requested": [ORDER_ID],
    "customer": {"id": 191167, "email": "ada@example.com", "phone": "555-625-1199"},
    "data_request": {"id": 9999},
}
