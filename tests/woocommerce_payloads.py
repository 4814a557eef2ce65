"""WooCommerce webhook deliveries as WooCommerce sends them, for the intake's tests.

The body is the REST API's v3 order, field for field as the WooCommerce REST API documentation
shows it ("Order properties" and the example of "Retrieve an order",
woocommerce.github.io/woocommerce-rest-api-docs/#orders): amounts as decimal strings, every line,
shipping and discount amount without tax with its tax beside it, times in the site's zone and
in GMT without an offset. The headers, the signature and the ping are those `WC_Webhook`
sends (class-wc-webhook.php: `deliver`, `generate_signature`, `deliver_ping`)."""

import base64
import copy
import hashlib
import hmac
import json
from typing import Any

STORE_URL = "https://tea-house.example/"
# Made here, not written: a tracked file holds no literal secret (tests/unit/secret_scan.py).
WEBHOOK_SECRET = hashlib.sha256(b"the tests WooCommerce webhook").hexdigest()[:32]
ORDER_ID = 727


def _address(**extra: str) -> dict[str, str]:
    return {
        "first_name": "Ada",
        "last_name": "Lovelace",
        "company": "",
        "address_1": "Unter den Linden 1",
        "address_2": "",
        "city": "Berlin",
        "state": "",
        "postcode": "10117",
        "country": "DE",
        **extra,
    }


def _line(line_id: int, *, name: str, sku: str, quantity: int, subtotal: str, tax: str, price: float) -> dict:
    return {
        "id": line_id,
        "name": name,
        "product_id": line_id + 100,
        "variation_id": 0,
        "quantity": quantity,
        "tax_class": "",
        "subtotal": subtotal,
        "subtotal_tax": tax,
        "total": subtotal,
        "total_tax": tax,
        "taxes": [{"id": 75, "total": tax, "subtotal": tax}],
        "meta_data": [],
        "sku": sku,
        "price": price,
        "image": {"id": "", "src": ""},
        "parent_name": None,
    }


ORDER: dict[str, Any] = {
    "id": ORDER_ID,
    "parent_id": 0,
    "number": "727",
    "order_key": "wc_order_58d2d042d1d",
    "created_via": "checkout",
    "version": "9.4.2",
    "status": "processing",
    "currency": "EUR",
    "date_created": "2026-11-30T10:30:00",
    "date_created_gmt": "2026-11-30T09:30:00",
    "date_modified": "2026-11-30T10:30:08",
    "date_modified_gmt": "2026-11-30T09:30:08",
    "discount_total": "4.20",
    "discount_tax": "0.80",
    "shipping_total": "4.12",
    "shipping_tax": "0.78",
    "cart_tax": "8.75",
    "total": "59.70",
    "total_tax": "9.53",
    "prices_include_tax": True,
    "customer_id": 0,
    "customer_ip_address": "",
    "customer_user_agent": "",
    "customer_note": "",
    "billing": _address(email="ada@example.com", phone="+49 30 1234567"),
    "shipping": _address(phone=""),
    "payment_method": "stripe",
    "payment_method_title": "Credit card (Stripe)",
    "transaction_id": "pi_3Q",
    "date_paid": "2026-11-30T10:30:08",
    "date_paid_gmt": "2026-11-30T09:30:08",
    "date_completed": None,
    "date_completed_gmt": None,
    "cart_hash": "",
    "meta_data": [],
    "line_items": [
        _line(
            315,
            name="Green tea 100 g",
            sku="TEA-GREEN",
            quantity=2,
            subtotal="21.68",
            tax="4.12",
            price=10.84,
        ),
        _line(316, name="Teapot", sku="POT-1", quantity=1, subtotal="28.57", tax="5.43", price=28.57),
    ],
    "tax_lines": [
        {
            "id": 318,
            "rate_code": "DE-MWST-1",
            "rate_id": 75,
            "label": "MwSt.",
            "compound": False,
            "tax_total": "8.75",
            "shipping_tax_total": "0.78",
            "rate_percent": 19,
            "meta_data": [],
        }
    ],
    "shipping_lines": [
        {
            "id": 317,
            "method_title": "DHL Paket",
            "method_id": "flat_rate",
            "instance_id": "1",
            "total": "4.12",
            "total_tax": "0.78",
            "taxes": [{"id": 75, "total": "0.78", "subtotal": ""}],
            "meta_data": [],
        }
    ],
    "fee_lines": [],
    "coupon_lines": [
        {"id": 319, "code": "welcome5", "discount": "4.20", "discount_tax": "0.80", "meta_data": []}
    ],
    "refunds": [],
    "currency_symbol": "€",
}


def order(**changes: Any) -> dict[str, Any]:
    return copy.deepcopy(ORDER) | changes


def signed_headers(
    body: bytes, *, topic: str, delivery_id: str, secret: str = WEBHOOK_SECRET, source: str = STORE_URL
) -> dict[str, str]:
    """The headers `WC_Webhook::deliver` sends, as Django's test client takes them."""
    resource, event = topic.split(".")
    signature = base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
    return {
        "HTTP_USER_AGENT": "WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)",
        "HTTP_X_WC_WEBHOOK_SOURCE": source,
        "HTTP_X_WC_WEBHOOK_TOPIC": topic,
        "HTTP_X_WC_WEBHOOK_RESOURCE": resource,
        "HTTP_X_WC_WEBHOOK_EVENT": event,
        "HTTP_X_WC_WEBHOOK_SIGNATURE": signature,
        "HTTP_X_WC_WEBHOOK_ID": "12",
        "HTTP_X_WC_WEBHOOK_DELIVERY_ID": delivery_id,
    }


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


# The Shipment Tracking extension's item, as the order's meta carries it (`_wc_shipment_tracking_items`).
TRACKING = {
    "id": 9901,
    "key": "_wc_shipment_tracking_items",
    "value": [
        {
            "tracking_provider": "DHL",
            "custom_tracking_provider": "",
            "custom_tracking_link": "",
            "tracking_number": "00340434161234567890",
            "date_shipped": "1733050800",
            "tracking_id": "a1b2",
        }
    ],
}


def trackship(status: str, *, status_date: str = "") -> list[dict[str, Any]]:
    """The order meta TrackShip for WooCommerce writes for the first tracking item
    (includes/api/class-trackship-rest-api-controller.php, `tracking_webhook`): every version
    `ts_shipment_status` [{status}]; versions before 1.6.2 also `shipment_status`, with its
    `status_date` from PHP's gmdate('Y-m-d H:i:s') (given here when `status_date` is)."""
    meta: list[dict[str, Any]] = [{"id": 9902, "key": "ts_shipment_status", "value": [{"status": status}]}]
    if status_date:
        dated = {
            "status": status,
            "status_date": status_date,
            "est_delivery_date": None,
            "last_event_time": "",
        }
        meta.append({"id": 9903, "key": "shipment_status", "value": [dated]})
    return meta


def shipped(
    status: str = "completed", *, modified: str, news: str = "", status_date: str = ""
) -> dict[str, Any]:
    """The order, completed with its tracking, at `modified` (GMT), with TrackShip's `news` if any."""
    meta = [TRACKING, *(trackship(news, status_date=status_date) if news else [])]
    return order(status=status, date_modified_gmt=modified, meta_data=meta)
