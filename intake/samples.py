"""A sample order as each platform would deliver it, for the admin's "Send a test delivery": one
line, a parcel's worth of address, paid, addressed to the person who asked, so that they receive
its confirmation as a customer would."""

import random
from datetime import UTC, datetime
from typing import Any

from shops.models import Shop

_ADDRESS = {
    "name": "Test Customer",
    "street": "Teststraße 1",
    "city": "Berlin",
    "postcode": "10117",
    "country": "DE",
}


def sample_order(shop: Shop, *, address: str) -> tuple[str, dict[str, Any]]:
    """The topic and payload of a new, paid sample order of the shop's platform."""
    number = random.randint(10**11, 10**12 - 1)
    now = datetime.now(UTC)
    if shop.platform == Shop.Platform.WOOCOMMERCE:
        return "order.created", _woocommerce(number, address, now)
    return "orders/create", _shopify(number, address, now)


def _shopify(number: int, address: str, now: datetime) -> dict[str, Any]:
    place = {
        "name": _ADDRESS["name"],
        "address1": _ADDRESS["street"],
        "city": _ADDRESS["city"],
        "zip": _ADDRESS["postcode"],
        "country_code": _ADDRESS["country"],
    }
    return {
        "id": number,
        "name": f"#TEST-{number % 100000}",
        "email": address,
        "test": True,
        "created_at": now.isoformat(),
        "updated_at": now.isoformat(),
        "currency": "EUR",
        "financial_status": "paid",
        "taxes_included": True,
        "total_line_items_price": "10.00",
        "subtotal_price": "10.00",
        "total_tax": "1.60",
        "total_price": "10.00",
        "line_items": [
            {
                "id": 1,
                "sku": "TEST-1",
                "name": "Test item",
                "quantity": 1,
                "price": "10.00",
                "tax_lines": [{"rate": 0.19, "price": "1.60"}],
            }
        ],
        "shipping_address": place,
        "billing_address": place,
        "customer": {"first_name": "Test", "last_name": "Customer", "email": address},
    }


def _woocommerce(number: int, address: str, now: datetime) -> dict[str, Any]:
    place = {
        "first_name": "Test",
        "last_name": "Customer",
        "address_1": _ADDRESS["street"],
        "city": _ADDRESS["city"],
        "postcode": _ADDRESS["postcode"],
        "country": _ADDRESS["country"],
    }
    return {
        "id": number,
        "number": f"TEST-{number % 100000}",
        "status": "processing",
        "currency": "EUR",
        "date_modified_gmt": now.replace(tzinfo=None).isoformat(timespec="seconds"),
        "date_paid_gmt": now.replace(tzinfo=None).isoformat(timespec="seconds"),
        "prices_include_tax": True,
        "total": "10.00",
        "total_tax": "1.60",
        "billing": place | {"email": address},
        "shipping": place,
        "line_items": [
            {
                "id": 1,
                "sku": "TEST-1",
                "name": "Test item",
                "quantity": 1,
                "subtotal": "8.40",
                "subtotal_tax": "1.60",
                "taxes": [{"id": 1, "total": "1.60"}],
            }
        ],
        "tax_lines": [{"rate_id": 1, "rate_percent": 19}],
    }
