"""The values a template sees. Plain strings and dicts only, never a model instance: an
override written in the admin can then reach nothing but what is listed here."""

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from notifications.content.about import about_context
from notifications.content.brand import brand_of_shop
from notifications.content.formatting import date_format, money_format
from notifications.content.purchase import purchase_context
from notifications.content.samples import SAMPLE_ABOUT, SAMPLE_CONTENT, SAMPLE_SHORT_ABOUT
from orders.changes import order_paid_at
from orders.content import line_id_skus, minor_to_amount
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
    "shop.legal_name": "who sells, as registered (e.g. Example Shop GmbH)",
    "shop.legal_address": "the seller's geographic address",
    "shop.phone": "the seller's telephone number",
    "shop.register": "the seller's register entry and VAT id, or empty",
    "shop.terms_url": "the terms and conditions (absolute)",
    "shop.withdrawal_url": "the right of withdrawal's conditions and the model withdrawal form (absolute)",
    "shop.withdrawal_days": "the withdrawal period in days (at least 14)",
    "order.number": "the order number customers quote: the shop's own (e.g. 1001), or for an order "
    "placed with the short body the first characters of its id (e.g. 1F3A9C2B)",
    "order.id": "the full order id",
    "order.amount": "the amount with its currency and the currency's decimals, formatted for the language "
    "(€49.90, 49,90 €, ¥1,500)",
    "order.placed_on": "the day the order was placed, formatted for the language",
    "order.paid_on": "the day the order was paid, formatted for the language; empty when it never was "
    "(its cancellation then promises no refund)",
    "order.customer_name": "the customer's name as the shop sent it (empty for a short-body order)",
    "order.lines": "what was bought, one entry per line, each with sku (empty for a product the shop "
    "gave none), name, quantity, unit_price, total and tax_rate (19 %), amounts formatted; empty for an "
    "order placed with the short body",
    "order.subtotal": "the lines' totals added up, formatted",
    "order.shipping_method": "how it is delivered (empty when the shop sent none)",
    "order.shipping_price": "what delivery costs, formatted (empty when the shop sent none)",
    "order.discounts": "each discount, with label (its description, else its code), code and amount",
    "order.tax_total": "the taxes in the total, formatted (empty when the shop sent none)",
    "order.payment_method": "how the customer pays, as the shop said it (empty when it did not)",
    "order.shipping_address": "where it goes, as the lines of an envelope, the country's name in the "
    "email's language",
    "order.billing_address": "the billing address's lines; empty when the shop sent none",
    "shipment.id": "the shop's id of the shipment (in a shipment's email)",
    "shipment.carrier": "who carries the parcel (in a shipment's email)",
    "shipment.tracking_number": "the parcel's tracking number, or empty (in a shipment's email)",
    "shipment.tracking_url": "where the customer follows the parcel, or empty (in a shipment's email)",
    "shipment.lines": "what is in the parcel, each with sku (empty as in order.lines), name and quantity "
    "(in a shipment's email)",
    "refund.id": "the shop's id of the refund (in a refund's email)",
    "refund.amount": "what is refunded, formatted (in a refund's email)",
    "refund.reason": "why, as the shop said it, or empty (in a refund's email)",
    "refund.lines": "the lines it refunds, each with sku (empty as in order.lines), name and quantity; "
    "may be empty (in a refund's email)",
    "cancellation.refunds": "the refunds announced with the cancellation, each with amount and reason "
    "(in a cancellation's email)",
    "cancellation.refunded": "their sum, formatted, or empty when none was announced "
    "(in a cancellation's email)",
    "cancellation.refunded_before": "what refunds before the cancellation gave back, formatted, or empty "
    "(in a cancellation's email)",
    "cancellation.left_to_refund": "what the order's payment took less those refunds (its amount, when "
    "paid in full), formatted, or empty when nothing is left (in a cancellation's email)",
    "customer_email": "the customer's address",
    "locale": "the email's language code (en, ru)",
    "subject": "the rendered subject (in the text and HTML parts)",
}


def email_context(
    order: Order,
    locale: str,
    content: dict[str, Any] | None,
    *,
    kind: str = "",
    about: dict[str, Any] | None = None,
    shop: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`content`: what was bought, in the version the email shows (orders.OrderVersion), or
    None for an order placed with the short body. `about`: what an email of `kind` is about
    beyond the order (about.py): a shipment's or refund's row, a cancellation's refunds.
    `shop`: the order's connected shop's fields (brand.py), None for an order of no shop."""
    placed = order.created_at or timezone.now()
    paid = order_paid_at(order)
    context: dict[str, Any] = {
        "shop": brand_of_shop(shop).as_context(),
        "order": {
            "number": order_number(order),
            "id": str(order.id),
            # The version's total: an email shows the order as its event saw it, not as later
            # edits made it (orders/edits.py); an order of the short body has only its amount.
            "amount": money_format(_amount_shown(order, content), order.currency, locale),
            "placed_on": date_format(timezone.localdate(placed), locale),
            "paid_on": date_format(timezone.localdate(paid), locale) if paid else "",
            **purchase_context(content, locale),
        },
        "customer_email": order.customer_email,
        "locale": locale,
    }
    return context | about_context(kind, about, order, locale, line_id_skus(content))


def order_number(order: Order) -> str:
    """The shop's own number; an order placed with the short body has none, and is known by
    the first characters of its id."""
    return order.number or str(order.id)[:8].upper()


def sample_order(locale: str, *, placed_at: datetime | None = None) -> Order:
    """An order that is never saved: previews and the render check of an override use it,
    with SAMPLE_CONTENT (sample_context)."""
    return Order(
        id=uuid.UUID("1f3a9c2b-5d4e-4f60-8a71-92b3c4d5e6f7"),
        number=SAMPLE_CONTENT["number"],
        customer_email="ada.lovelace@example.com",
        customer_name=SAMPLE_CONTENT["customer_name"],
        amount=Decimal("49.90"),
        currency="EUR",
        locale=locale,
        created_at=placed_at or timezone.now(),
        content_version=1,
    )


def sample_context(kind: str, locale: str, *, placed_at: datetime | None = None) -> dict[str, Any]:
    """The values of the sample order's email of `kind`, as an email in `locale` sees them."""
    order = sample_order(locale, placed_at=placed_at)
    return email_context(order, locale, SAMPLE_CONTENT, kind=kind, about=SAMPLE_ABOUT.get(kind))


def sample_short_context(kind: str, locale: str, *, placed_at: datetime | None = None) -> dict[str, Any]:
    """The values of a sample order placed with the short body (address, amount, currency):
    no number of the shop's, no lines, no addresses. A wording must render for it too."""
    order = sample_order(locale, placed_at=placed_at)
    order.number, order.customer_name, order.content_version = None, "", None
    return email_context(order, locale, None, kind=kind, about=SAMPLE_SHORT_ABOUT.get(kind))


def _amount_shown(order: Order, content: dict[str, Any] | None) -> Decimal:
    if content is None:
        return Decimal(order.amount)
    return minor_to_amount(content["total"], order.currency)
