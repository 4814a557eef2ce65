"""A sample order as Shopify delivers one (intake/samples.py)."""

import uuid
from datetime import datetime
from typing import Any

from intake.samples import SAMPLE_CUSTOMER, SampleDelivery
from intake.shopify import SIGNING
from shops.models import Shop


def _payload(number: int, address: str, now: datetime) -> dict[str, Any]:
    place = {
        "name": f"{SAMPLE_CUSTOMER['first_name']} {SAMPLE_CUSTOMER['last_name']}",
        "address1": SAMPLE_CUSTOMER["street"],
        "city": SAMPLE_CUSTOMER["city"],
        "zip": SAMPLE_CUSTOMER["postcode"],
        "country_code": SAMPLE_CUSTOMER["country"],
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
        "customer": {
            "first_name": SAMPLE_CUSTOMER["first_name"],
            "last_name": SAMPLE_CUSTOMER["last_name"],
            "email": address,
        },
    }


def _headers(shop: Shop, topic: str, body: bytes) -> dict[str, str]:
    return {
        SIGNING.header: SIGNING.signature_of(body, shop.webhook_secret),
        "X-Shopify-Shop-Domain": shop.domain,
        "X-Shopify-Topic": topic,
        "X-Shopify-Event-Id": f"test-{uuid.uuid4()}",
    }


SAMPLE = SampleDelivery(topic="orders/create", payload_of=_payload, headers_of=_headers)
