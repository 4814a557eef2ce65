"""Who an invoice is from and to, as printed on it: the seller's legal data and VAT number (the
connected shop's, field by field falling back to the deployment's SHOP_* settings, as its
emails do), and the customer with the billing address (the delivery address when the order
has none)."""

from typing import Any

from django.conf import settings

from orders.models import Order
from shops.models import Shop

# The seller's fields an invoice prints, each with the setting a blank one falls back to.
SELLER_FIELDS = {
    "legal_name": "SHOP_LEGAL_NAME",
    "legal_address": "SHOP_LEGAL_ADDRESS",
    "vat_number": "SHOP_VAT_NUMBER",
    "register": "SHOP_REGISTER",
    "support_email": "SHOP_SUPPORT_EMAIL",
}


def seller_of(order: Order) -> dict[str, str]:
    # the shop the intake placed the order with (no query), or read once
    shop: Shop | None = order.shop if order.shop_id else None
    return {
        field: getattr(shop, field, "") or getattr(settings, setting)
        for field, setting in SELLER_FIELDS.items()
    }


def buyer_of(order: Order, content: dict[str, Any]) -> dict[str, Any]:
    address = content.get("billing_address") or content.get("shipping_address") or {}
    return {
        "name": address.get("name") or content.get("customer_name") or order.customer_name,
        "company": address.get("company", ""),
        "address": {
            key: address.get(key, "")
            for key in ("line1", "line2", "postal_code", "city", "region", "country")
        },
        "email": order.customer_email,
    }
