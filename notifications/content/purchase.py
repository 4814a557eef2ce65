"""What was bought, as an email shows it: the order's content (orders/content.py, amounts in
minor units) turned into strings written the customer's way: "2", "€19.90", "19 %", an address
as the lines of an envelope.

Every key is present for every order, empty where the order has nothing to say (an order placed
with the short body has no lines; an order without a billing address has none), so a template
asks `{% if order.lines %}` and never meets an undefined value."""

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from babel import Locale
from babel.numbers import format_percent

from notifications.content.formatting import babel_locale, money_format
from orders.content import line_id_skus, minor_to_amount

# Where the post writes the town before the postal code, on one line with the region
# ("Springfield, IL 62701"); elsewhere the postal code comes first ("10115 Berlin").
_TOWN_FIRST = frozenset({"US", "CA", "AU"})
# Where the postal code has a line of its own, after the town.
_CODE_LAST_LINE = frozenset({"GB", "IE"})


def purchase_context(content: dict[str, Any] | None, locale: str) -> dict[str, Any]:
    """The `order.*` values about what was bought (docs/email-content.md lists them)."""
    if content is None:
        return {
            "customer_name": "",
            "lines": [],
            "subtotal": "",
            "shipping_method": "",
            "shipping_price": "",
            "discounts": [],
            "tax_total": "",
            "payment_method": "",
            "shipping_address": [],
            "billing_address": [],
        }
    currency = content["currency"]

    def money(minor: int) -> str:
        return money_format(minor_to_amount(minor, currency), currency, locale)

    shipping = content.get("shipping")
    tax_total = content.get("tax_total")
    line_ids = line_id_skus(content)
    return {
        "customer_name": content["customer_name"],
        "lines": [_line(line, money, locale, line_ids) for line in content["lines"]],
        "subtotal": money(sum(line["total"] for line in content["lines"])),
        "shipping_method": shipping["method"] if shipping else "",
        "shipping_price": money(shipping["price"]) if shipping else "",
        "discounts": [
            {
                "label": d.get("description") or d.get("code", ""),
                "code": d.get("code", ""),
                "amount": money(d["amount"]),
            }
            for d in content.get("discounts", [])
        ],
        "tax_total": money(tax_total) if tax_total is not None else "",
        "payment_method": content.get("payment_method", ""),
        "shipping_address": address_lines(content["shipping_address"], locale),
        "billing_address": address_lines(content.get("billing_address"), locale),
    }


def _line(
    line: dict[str, Any], money: Callable[[int], str], locale: str, line_ids: frozenset[str]
) -> dict[str, str]:
    return {
        "sku": shown_sku(line["sku"], line_ids),
        "name": line["name"],
        "quantity": str(line["quantity"]),
        "unit_price": money(line["unit_price"]),
        "total": money(line["total"]),
        "tax_rate": format_percent(
            Decimal(line["tax_rate"]), locale=babel_locale(locale), decimal_quantization=False
        ),
    }


def shown_sku(sku: str, line_ids: frozenset[str]) -> str:
    """The SKU a customer reads: none for a product the shop gave none (its key is the
    platform's line id, orders/content.py), so the email names it by its name alone."""
    return "" if sku in line_ids else sku


def address_lines(address: dict[str, Any] | None, locale: str) -> list[str]:
    """The address as it goes on an envelope, the country's name in the email's language."""
    if not address:
        return []
    country = address["country"]
    code, town, region = address.get("postal_code", ""), address["city"], address.get("region", "")
    if country in _TOWN_FIRST:
        town_lines = [
            " ".join(part for part in (f"{town}," if region or code else town, region, code) if part)
        ]
    elif country in _CODE_LAST_LINE:
        town_lines = [town, region, code]
    else:
        town_lines = [" ".join(part for part in (code, town) if part), region]
    lines = [
        address["name"],
        address.get("company", ""),
        address["line1"],
        address.get("line2", ""),
        *town_lines,
    ]
    lines.append(Locale.parse(babel_locale(locale)).territories.get(country, country))
    return [line for line in lines if line]
