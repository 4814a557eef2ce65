"""What a shop's order holds, as the shop sends it: the lines bought, where they go, what
delivery and discounts cost, the taxes and the total, every amount an integer in the currency's
minor units (cents; none for JPY, thousandths for KWD), as shops and payment providers count.

The content is stored as it came (OrderVersion.content), so this module only checks it: the
totals must add up, and an order that does not add up is refused before anything is stored,
naming its first mismatch. Taxes are taken as sent: prices include them or not as the shop's
country has it, and the shop's own tax engine is the authority on their amounts.

The API (api/order_input.py) checks each field's type and length first; every intake of a
shop's order (the API, the shop platforms' webhooks) calls `content_totals_check`.
"""

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from babel import Locale

from orders.currencies import currency_decimals

# Stated in the API schema and enforced there, each with its 400.
MAX_LINES = 250
MAX_DISCOUNTS = 20
MAX_QUANTITY = 100_000
MAX_MINOR_AMOUNT = 10**13  # above any real order in any currency, below PostgreSQL's bigint
SHORT_TEXT = 64  # order number, SKU, discount code, carrier
NAME_TEXT = 200  # customer and product names, address lines, shipping method
# A line whose product has no SKU (every platform makes it optional) is keyed by the platform's
# line id instead, "item-<id>", which its parcels and refunds name it by; the line says so with
# this key set to true, and its emails show the product's name alone (no SKU a customer could
# quote). The API takes no such line: its lines always carry the shop's SKU.
SKU_IS_LINE_ID = "sku_is_line_id"
# ISO 3166-1 alpha-2 codes: an address's country, named in the customer's language in emails.
COUNTRIES = frozenset(code for code in Locale("en").territories if isinstance(code, str) and code.isalpha())


class ContentMismatch(ValueError):
    """The order's amounts do not add up: `field` is where (e.g. `lines[2].total`), the
    message says what was expected and what was sent."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def content_totals_check(content: dict[str, Any]) -> None:
    """Each line's total is its quantity times its unit price; the order's total is the
    lines, plus shipping, less the discounts; the total is more than zero. Raises
    ContentMismatch at the first amount that is not so."""
    for index, line in enumerate(content["lines"]):
        expected = line["quantity"] * line["unit_price"]
        if line["total"] != expected:
            raise ContentMismatch(
                f"lines[{index}].total",
                f"Line {index + 1} ({line['sku']}): {line['quantity']} x {line['unit_price']} = "
                f"{expected}, but its total is {line['total']}.",
            )
    lines = sum(line["total"] for line in content["lines"])
    shipping = content["shipping"]["price"] if content.get("shipping") else 0
    discounts = sum(discount["amount"] for discount in content.get("discounts", []))
    expected_total = lines + shipping - discounts
    if content["total"] != expected_total:
        raise ContentMismatch(
            "total",
            f"The lines ({lines}) plus shipping ({shipping}) less discounts ({discounts}) make "
            f"{expected_total}, but the total is {content['total']}.",
        )
    if expected_total <= 0:
        raise ContentMismatch("total", "The total must be greater than zero.")
    tax_total = content.get("tax_total")
    if tax_total is not None and tax_total > expected_total:
        raise ContentMismatch(
            "tax_total", f"The taxes ({tax_total}) cannot be more than the total ({expected_total})."
        )


# What a parcel or a refund naming lines meets in an order whose content was erased
# (orders/personal_data.py: its customer's erasure, or the end of its retention period).
CONTENT_ERASED = "order_erased"


def content_erased_message(order_name: str) -> str:
    """Why an erased order takes no parcel and no refund naming lines: the lines it held kept
    their quantities and amounts only, so nothing can be matched to them."""
    return (
        f"What order {order_name} bought was erased with its customer's personal data (at their "
        "request, or at the end of its retention period): its lines are no longer known, so no "
        "parcel or refund can be matched to them, and none of its emails is sent."
    )


def lines_ordered(content: dict[str, Any]) -> tuple[Counter[str], dict[str, str]]:
    """How many of each SKU the order's lines hold, and each SKU's name (its first line's):
    what a parcel or a refund may name, and how it is called in their emails."""
    ordered: Counter[str] = Counter()
    names: dict[str, str] = {}
    for line in content["lines"]:
        ordered[line["sku"]] += line["quantity"]
        names.setdefault(line["sku"], line["name"])
    return ordered, names


def line_sku(key: str, *, shop_gave_sku: bool) -> dict[str, Any]:
    """A line's `sku` as the content keeps it: the shop's SKU, or the platform's line id marked
    as such (SKU_IS_LINE_ID) when the shop gave none."""
    return {"sku": key} if shop_gave_sku else {"sku": key, SKU_IS_LINE_ID: True}


def line_id_skus(content: dict[str, Any] | None) -> frozenset[str]:
    """The `sku`s of the content's lines that are a platform's line ids, not the shop's SKUs:
    what an email shows of no line, nor of a parcel's or a refund's naming it."""
    lines = content.get("lines", []) if content else []
    return frozenset(line["sku"] for line in lines if line.get(SKU_IS_LINE_ID))


def minor_to_amount(minor: int, currency: str) -> Decimal:
    """An amount in minor units as the decimal amount of its currency (4990 EUR → 49.90)."""
    return Decimal(minor).scaleb(-currency_decimals(currency))


@dataclass(frozen=True)
class ShopOrder:
    """A shop's order whose content has been checked (`content_totals_check`): the JSON
    document stored as its first version, and what the order's own columns take from it."""

    content: dict[str, Any]

    @property
    def amount(self) -> Decimal:
        return minor_to_amount(self.content["total"], self.content["currency"])

    def order_fields(self) -> dict[str, Any]:
        return {
            "number": self.content["number"],
            "customer_name": self.content["customer_name"],
            "content_version": 1,
        }
