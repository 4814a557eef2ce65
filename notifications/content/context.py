"""The values a template sees. Plain strings and dicts only, never a model instance: an
override written in the admin can then reach nothing but what is listed here."""

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from notifications.content.brand import brand_from_settings
from notifications.content.formatting import date_format, money_format
from orders.models import Order

# Documented for people writing overrides (docs/email-content.md); a test keeps it in step.
CONTEXT_VARIABLES = {
    "shop.name": "the shop's name",
    "shop.url": "the shop's address (absolute)",
    "shop.logo_url": "the logo's address (absolute)",
    "shop.primary_color": "the brand colour, #rrggbb",
    "shop.text_color": "the text colour, #rrggbb",
    "shop.footer_address": "the postal address in the footer",
    "shop.support_email": "where customers write with questions",
    "order.number": "the order number customers quote: the shop's own (e.g. 1001), or for an order "
    "placed with the short body the first characters of its id (e.g. 1F3A9C2B)",
    "order.id": "the full order id",
    "order.amount": "the amount with its currency and the currency's decimals, formatted for the language "
    "(€49.90, 49,90 €, ¥1,500)",
    "order.placed_on": "the day the order was placed, formatted for the language",
    "customer_email": "the customer's address",
    "locale": "the email's language code (en, ru)",
    "subject": "the rendered subject (in the text and HTML parts)",
}


def email_context(order: Order, locale: str) -> dict[str, Any]:
    placed = order.created_at or timezone.now()
    return {
        "shop": brand_from_settings().as_context(),
        "order": {
            "number": order_number(order),
            "id": str(order.id),
            "amount": money_format(Decimal(order.amount), order.currency, locale),
            "placed_on": date_format(timezone.localdate(placed), locale),
        },
        "customer_email": order.customer_email,
        "locale": locale,
    }


def order_number(order: Order) -> str:
    """The shop's own number; an order placed with the short body has none, and is known by
    the first characters of its id."""
    return order.number or str(order.id)[:8].upper()


def sample_order(locale: str, *, placed_at: datetime | None = None) -> Order:
    """An order that is never saved: previews and the render check of an override use it."""
    return Order(
        id=uuid.UUID("1f3a9c2b-5d4e-4f60-8a71-92b3c4d5e6f7"),
        customer_email="ada.lovelace@example.com",
        amount=Decimal("49.90"),
        currency="EUR",
        locale=locale,
        created_at=placed_at or timezone.now(),
    )
