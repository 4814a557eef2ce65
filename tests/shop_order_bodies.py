"""A shop's order as a shop sends it to POST /api/orders/, for the tests that place one."""

import copy
from typing import Any

SHOP_ORDER: dict[str, Any] = {
    "number": "1001",
    "customer_email": "ada@example.com",
    "customer_name": "Ada Lovelace",
    "currency": "EUR",
    "locale": "en",
    "lines": [
        {
            "sku": "TEA-GREEN",
            "name": "Green tea",
            "quantity": 2,
            "unit_price": 1250,
            "total": 2500,
            "tax_rate": "0.07",
        },
        {"sku": "MUG-1", "name": "Mug", "quantity": 1, "unit_price": 990, "total": 990, "tax_rate": "0.19"},
    ],
    "shipping_address": {
        "name": "Ada Lovelace",
        "line1": "Hauptstraße 1",
        "postal_code": "10115",
        "city": "Berlin",
        "country": "DE",
    },
    "shipping": {"method": "DHL Paket", "price": 490},
    "discounts": [{"code": "WELCOME", "description": "Welcome", "amount": 500}],
    "tax_total": 296,
    "total": 3480,
}


def shop_order_body(**changes: Any) -> dict[str, Any]:
    """SHOP_ORDER with some fields replaced (a deep copy: the tests change nested parts)."""
    body = copy.deepcopy(SHOP_ORDER)
    body.update(changes)
    return body
