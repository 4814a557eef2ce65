"""A sample order as WooCommerce delivers one (intake/samples.py)."""

import uuid
from datetime import datetime
from typing import Any

from intake.samples import SAMPLE_CUSTOMER, SampleDelivery
from intake.woocommerce import SIGNING
from shops.models import Shop


def _payload(number: int, address: str, now: datetime) -> dict[str, Any]:
    place = {
        "first_name": SAMPLE_CUSTOMER["first_name"],
        "last_name": SAMPLE_CUSTOMER["last_name"],
        "address_1": SAMPLE_CUSTOMER["street"],
        "city": SAMPLE_CUSTOMER["city"],
        "postcode": SAMPLE_CUSTOMER["postcode"],
        "country": SAMPLE_CUSTOMER["country"],
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


def _headers(shop: Shop, topic: str, body: bytes) -> dict[str, str]:
    return {
        SIGNING.header: SIGNING.signature_of(body, shop.webhook_secret),
        "X-WC-Webhook-Source": shop.domain,
        "X-WC-Webhook-Topic": topic,
        "X-WC-Webhook-Delivery-ID": f"test-{uuid.uuid4().hex}",
    }


SAMPLE = SampleDelivery(topic="order.created", payload_of=_payload, headers_of=_headers)
