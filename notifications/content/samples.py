"""The sample order a preview, a test send and the admin's editor render an email against, and
what each kind of email is about beyond it (context.py's sample_context)."""

from typing import Any

# What the sample order bought: every part an order may have, so a preview shows each.
SAMPLE_CONTENT: dict[str, Any] = {
    "number": "1001",
    "customer_email": "ada.lovelace@example.com",
    "customer_name": "Ada Lovelace",
    "currency": "EUR",
    "lines": [
        {
            "sku": "MUG-BLUE",
            "name": "Blue mug",
            "quantity": 2,
            "unit_price": 1490,
            "total": 2980,
            "tax_rate": "0.19",
        },
        {
            "sku": "TEA-EARL",
            "name": "Earl Grey, 250 g",
            "quantity": 1,
            "unit_price": 1810,
            "total": 1810,
            "tax_rate": "0.07",
        },
    ],
    "shipping_address": {
        "name": "Ada Lovelace",
        "line1": "Hauptstrasse 12",
        "postal_code": "10115",
        "city": "Berlin",
        "country": "DE",
    },
    "shipping": {"method": "DHL Paket", "price": 490},
    "discounts": [{"code": "WELCOME", "description": "Welcome discount", "amount": 290}],
    "tax_total": 594,
    "payment_method": "Credit card, paid",
    "total": 4990,
}
# What the sample order's emails are about beyond the order: its first parcel (the mugs, the
# tea still to come), a refund of the tea, and a cancellation that refunds everything.
SAMPLE_SHIPMENT: dict[str, Any] = {
    "shop_shipment_id": "1001-1",
    "carrier": "DHL",
    "tracking_number": "00340434161234567890",
    "tracking_url": "https://www.dhl.de/de/privatkunden/dhl-sendungsverfolgung.html?piececode=00340434161234567890",
    "lines": [{"sku": "MUG-BLUE", "name": "Blue mug", "quantity": 2}],
}
SAMPLE_REFUND: dict[str, Any] = {
    "shop_refund_id": "1001-R1",
    "amount_minor": 1810,
    "reason": "Damaged in transit",
    "lines": [{"sku": "TEA-EARL", "name": "Earl Grey, 250 g", "quantity": 1}],
}
# A change that made the sample order what it is: a second Blue mug, the White cup dropped.
SAMPLE_EDIT: dict[str, Any] = {
    "from_version": 1,
    "to_version": 2,
    "lines": [
        {
            "sku": "MUG-BLUE",
            "name": "Blue mug",
            "before": 1,
            "after": 2,
            "unit_price_before": 1490,
            "unit_price_after": 1490,
        },
        {
            "sku": "CUP-WHITE",
            "name": "White cup",
            "before": 1,
            "after": 0,
            "unit_price_before": 990,
            "unit_price_after": None,
        },
    ],
    "total_before_minor": 4490,
    "total_after_minor": 4990,
}
SAMPLE_INVOICE: dict[str, Any] = {"number_text": "INV-000042", "total_minor": 4990}
SAMPLE_ABOUT: dict[str, dict[str, Any]] = {
    "order_edit": SAMPLE_EDIT,
    "order_invoice": SAMPLE_INVOICE,
    "order_shipment": SAMPLE_SHIPMENT,
    "parcel_in_transit": SAMPLE_SHIPMENT,
    "parcel_out_for_delivery": SAMPLE_SHIPMENT,
    "parcel_delivered": SAMPLE_SHIPMENT,
    "parcel_delivery_failed": SAMPLE_SHIPMENT,
    "order_refund": SAMPLE_REFUND,
    "order_cancellation": {
        "refunds": [
            {"shop_refund_id": "1001-C", "amount_minor": 4990, "reason": "Cancelled at your request"}
        ],
        "refunded_before": 0,
    },
}
# An order placed with the short body: a parcel without lines or tracking, a refund without
# lines or reason, a cancellation that announced no refund.
SAMPLE_SHORT_PARCEL: dict[str, Any] = {
    "shop_shipment_id": "S-1",
    "carrier": "Local courier",
    "tracking_number": "",
    "tracking_url": "",
    "lines": [],
}
SAMPLE_SHORT_ABOUT: dict[str, dict[str, Any]] = {
    # (an order placed with the short body has no lines to change: the sample's change is shown)
    "order_edit": SAMPLE_EDIT,
    "order_invoice": SAMPLE_INVOICE,  # (no invoice without lines: the sample's is shown)
    "order_shipment": SAMPLE_SHORT_PARCEL,
    "parcel_in_transit": SAMPLE_SHORT_PARCEL,
    "parcel_out_for_delivery": SAMPLE_SHORT_PARCEL,
    "parcel_delivered": SAMPLE_SHORT_PARCEL,
    "parcel_delivery_failed": SAMPLE_SHORT_PARCEL,
    "order_refund": {"shop_refund_id": "R-1", "amount_minor": 1000, "reason": "", "lines": []},
    "order_cancellation": {"refunds": [], "refunded_before": 0},
}
