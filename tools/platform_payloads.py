"""Orders as Shopify and WooCommerce deliver them by webhook, for the demo and the drill: shaped
as in tests/shopify_payloads.py and tests/woocommerce_payloads.py (each platform's
documentation), cut to the fields the intake reads and a few around them. A line is
(sku, name, gross unit price in minor units), one of each."""

import copy
import uuid
from datetime import UTC, datetime, timedelta

from intake import shopify

PRODUCTS = (("TEA-GREEN", "Green tea - 100 g", 1290), ("POT-1", "Teapot", 3400), ("MUG-2", "Mug", 990))
Line = tuple[str, str, int]


def shopify_order(order_id: int, number: int, lines: list[Line], *, address: str) -> dict:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    items_total = sum(price for _, _, price in lines)
    total = items_total + 490
    place = {"name": f"Shopper {number}", "address1": "Hauptstrasse 1", "city": "Berlin", "zip": "10115"}
    return {
        "id": order_id,
        "name": f"#S{number}",
        "email": address,
        "created_at": now,
        "updated_at": now,
        "currency": "EUR",
        "customer_locale": "de-DE" if number % 4 == 0 else "en-DE",
        "financial_status": "paid",
        "taxes_included": True,
        "total_line_items_price": money(items_total),
        "subtotal_price": money(items_total),  # after discounts: none here
        "total_tax": money(total * 19 // 119),
        "total_price": money(total),
        "payment_gateway_names": ["shopify_payments"],
        "line_items": [shopify_line(order_id, sku, name, price) for sku, name, price in lines],
        "shipping_lines": [{"title": "DHL Paket", "price": "4.90", "discount_allocations": []}],
        "shipping_address": place | {"country_code": "DE"},
        "customer": {"first_name": "Shopper", "last_name": str(number), "email": address},
        "fulfillments": [],
        "refunds": [],
    }


def shopify_line(order_id: int, sku: str, name: str, price: int) -> dict:
    return {
        "id": order_id * 10 + PRODUCTS.index(next(p for p in PRODUCTS if p[0] == sku)),
        "sku": sku,
        "name": name,
        "quantity": 1,
        "price": money(price),
        "discount_allocations": [],
        "tax_lines": [{"title": "DE MwSt", "rate": 0.19, "price": money(price * 19 // 119)}],
    }


def shopify_parcel(order_id: int, index: int, lines: list[Line]) -> dict:
    tracking = f"00340434{order_id % 10**8:08d}{index:02d}"
    return {
        "id": order_id * 100 + index,
        "order_id": order_id,
        "status": "success",
        "tracking_company": "DHL",
        "tracking_number": tracking,
        "tracking_url": f"https://www.dhl.de/de/privatkunden.html?piececode={tracking}",
        "line_items": [shopify_line(order_id, sku, name, price) for sku, name, price in lines],
    }


def shopify_parcel_news(order_id: int, index: int, number: int, status: str, happened_at: datetime) -> dict:
    """A FulfillmentEvent of the parcel `shopify_parcel(order_id, index, ...)`: its `number`th news."""
    return {
        "id": (order_id * 100 + index) * 10 + number,
        "fulfillment_id": order_id * 100 + index,
        "order_id": order_id,
        "status": status,
        "message": None,
        "happened_at": happened_at.isoformat(),
        "created_at": happened_at.isoformat(),
    }


def shopify_order_edited(order: dict, lines: list[Line]) -> tuple[dict, list[Line]]:
    """`order` after an edit in Shopify's admin two seconds later, and the lines it then holds:
    a product it lacks added (a line of its own), or, when it has every product, its last line
    removed (its `current_quantity` 0); Shopify's current total and taxes follow."""
    later = (datetime.fromisoformat(order["updated_at"]) + timedelta(seconds=2)).isoformat()
    edited = copy.deepcopy(order) | {"updated_at": later}
    total = sum(price for _, _, price in lines) + 490
    missing = [product for product in PRODUCTS if product not in lines]
    if missing:
        sku, name, price = missing[0]
        edited["line_items"].append(shopify_line(order["id"], sku, name, price) | {"current_quantity": 1})
        now, total = [*lines, missing[0]], total + price
    else:
        edited["line_items"][-1]["current_quantity"] = 0
        now, total = lines[:-1], total - lines[-1][2]
    edited["current_total_price"] = money(total)
    edited["current_total_tax"] = money(total * 19 // 119)
    return edited, now


def shopify_refund(order_id: int, line: Line) -> dict:
    sku, name, price = line
    return {
        "id": order_id * 100 + 99,
        "order_id": order_id,
        "note": "Returned",
        "refund_line_items": [{"quantity": 1, "line_item": shopify_line(order_id, sku, name, price)}],
        "transactions": [{"kind": "refund", "status": "success", "amount": money(price), "currency": "EUR"}],
    }


def woocommerce_order(order_id: int, lines: list[Line], *, address: str, at: datetime) -> dict:
    person = {"first_name": "Woo", "last_name": f"Shopper {order_id}", "address_1": "Hauptstrasse 1"}
    place = person | {"city": "Berlin", "postcode": "10115", "country": "DE"}
    total = sum(price for _, _, price in lines) + 490
    return {
        "id": order_id,
        "number": str(order_id),
        "status": "processing",
        "currency": "EUR",
        "date_modified_gmt": naive_utc(at),
        "date_paid_gmt": naive_utc(at),
        "prices_include_tax": True,
        "total": money(total),
        "total_tax": money(total * 19 // 119),
        "shipping_total": "4.12",
        "shipping_tax": "0.78",
        "billing": place | {"email": address},
        "shipping": place,
        "line_items": [
            woocommerce_line(index, sku, name, price) for index, (sku, name, price) in enumerate(lines, 1)
        ],
        "shipping_lines": [{"method_title": "DHL Paket", "total": "4.12", "total_tax": "0.78"}],
        "tax_lines": [{"rate_id": 1, "rate_percent": 19}],
        "refunds": [],
    }


def woocommerce_line(line_id: int, sku: str, name: str, price: int) -> dict:
    tax = price * 19 // 119
    return {
        "id": line_id,
        "name": name,
        "sku": sku,
        "quantity": 1,
        "subtotal": money(price - tax),
        "subtotal_tax": money(tax),
        "taxes": [{"id": 1, "total": money(tax)}],
    }


def money(minor: int) -> str:
    return f"{minor / 100:.2f}"


def naive_utc(moment: datetime, *, later: int = 0) -> str:
    """WooCommerce's `*_gmt` times: UTC without an offset, `later` seconds after `moment`."""
    return (moment + timedelta(seconds=later)).replace(tzinfo=None).isoformat(timespec="seconds")


def shopify_headers(body: bytes, *, secret: str, domain: str, topic: str, event_id: str) -> dict[str, str]:
    """A delivery's headers as Shopify sends them, signed with the product's own signature
    (intake.shopify): `event_id` is the same on every retry of one event."""
    return {
        "Content-Type": "application/json",
        "X-Shopify-Hmac-Sha256": shopify.SIGNING.signature_of(body, secret),
        "X-Shopify-Topic": topic,
        "X-Shopify-Shop-Domain": domain,
        "X-Shopify-Webhook-Id": str(uuid.uuid4()),
        "X-Shopify-Event-Id": event_id,
        "X-Shopify-Triggered-At": datetime.now(UTC).isoformat(),
    }
