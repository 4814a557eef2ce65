"""A shop's order adds up (orders/content.py, `content_totals_check`): each line's total is its
quantity times its unit price, the order's total is the lines plus shipping less the discounts
and more than zero, and the taxes are no more than the total; the first amount that is not so is
named. Amounts are integers in the currency's minor units. (tests/integration/api/
test_shop_orders.py: the same through the API, as a 400 naming the field, nothing stored.)"""

from decimal import Decimal

import pytest

from orders.content import ContentMismatch, ShopOrder, content_totals_check, lines_ordered, minor_to_amount
from tests.shop_order_bodies import SHOP_ORDER, shop_order_body

TEA, MUG = SHOP_ORDER["lines"]  # 2 x 1250 = 2500, 1 x 990 = 990; shipping 490, discount 500: 3480


def _mismatch(content: dict) -> tuple[str, str]:
    with pytest.raises(ContentMismatch) as mismatch:
        content_totals_check(content)
    return mismatch.value.field, str(mismatch.value)


def _line(sku: str, quantity: int, unit_price: int, total: int) -> dict:
    return {"sku": sku, "name": sku.title(), "quantity": quantity, "unit_price": unit_price, "total": total}


@pytest.mark.parametrize(
    "content",
    [
        SHOP_ORDER,
        shop_order_body(shipping=None, discounts=[], total=3490),  # no shipping, no discount
        {key: value for key, value in shop_order_body(total=2990).items() if key not in ("shipping",)},
        {key: value for key, value in SHOP_ORDER.items() if key not in ("discounts", "tax_total")}
        | {"total": 3980},
        shop_order_body(discounts=[{"amount": 100}, {"amount": 400}]),  # discounts add up
        shop_order_body(discounts=[{"amount": 3979}], tax_total=0, total=1),  # the smallest total
        shop_order_body(tax_total=3480),  # taxes as large as the total (a tax-only line)
        shop_order_body(tax_total=0),
        shop_order_body(tax_total=None),
        shop_order_body(shipping={"method": "free", "price": 0}, total=2990),
        # a line given away: nothing times its price
        shop_order_body(lines=[TEA, MUG, _line("GIFT", 1, 0, 0)]),
        # large amounts stay exact integers (no float on the way)
        shop_order_body(
            lines=[_line("GOLD", 100_000, 99_999_999, 9_999_999_900_000)],
            shipping=None,
            discounts=[],
            tax_total=None,
            total=9_999_999_900_000,
        ),
    ],
)
def test_an_order_that_adds_up_is_taken(content):
    content_totals_check(content)  # raises ContentMismatch otherwise


@pytest.mark.parametrize(
    ("content", "field", "message"),
    [
        (
            shop_order_body(lines=[TEA, {**MUG, "total": 999}]),
            "lines[1].total",
            "Line 2 (MUG-1): 1 x 990 = 990, but its total is 999.",
        ),
        (
            shop_order_body(lines=[{**TEA, "total": 1250}, {**MUG, "total": 0}]),
            "lines[0].total",  # the first mismatch is named, and the order's total is not looked at
            "Line 1 (TEA-GREEN): 2 x 1250 = 2500, but its total is 1250.",
        ),
        (
            shop_order_body(lines=[{**TEA, "quantity": 3}], total=3490),
            "lines[0].total",
            "Line 1 (TEA-GREEN): 3 x 1250 = 3750, but its total is 2500.",
        ),
        (
            shop_order_body(total=3481),
            "total",
            "The lines (3490) plus shipping (490) less discounts (500) make 3480, but the total is 3481.",
        ),
        (
            shop_order_body(total=3479),
            "total",
            "The lines (3490) plus shipping (490) less discounts (500) make 3480, but the total is 3479.",
        ),
        (
            shop_order_body(total=3980),  # the discount left out
            "total",
            "The lines (3490) plus shipping (490) less discounts (500) make 3480, but the total is 3980.",
        ),
        (
            shop_order_body(shipping=None, total=3480),  # shipping counted that is not there
            "total",
            "The lines (3490) plus shipping (0) less discounts (500) make 2990, but the total is 3480.",
        ),
        (
            shop_order_body(discounts=[{"amount": 3980}], total=0),
            "total",
            "The total must be greater than zero.",
        ),
        (
            shop_order_body(discounts=[{"amount": 5000}], total=-1020),  # adds up, below zero
            "total",
            "The total must be greater than zero.",
        ),
        (
            shop_order_body(
                lines=[_line("GIFT", 1, 0, 0)], shipping=None, discounts=[], tax_total=None, total=0
            ),
            "total",
            "The total must be greater than zero.",
        ),
        (
            shop_order_body(tax_total=3481),
            "tax_total",
            "The taxes (3481) cannot be more than the total (3480).",
        ),
    ],
)
def test_the_first_amount_that_does_not_add_up_is_named(content, field, message):
    assert _mismatch(content) == (field, message)


@pytest.mark.parametrize(
    ("minor", "currency", "amount"),
    [
        (4990, "EUR", "49.90"),
        (1, "EUR", "0.01"),
        (1500, "JPY", "1500"),
        (12345, "KWD", "12.345"),
        (1250, "KWD", "1.250"),
        (0, "EUR", "0.00"),
        (-5, "EUR", "-0.05"),
        (10**13, "EUR", "100000000000.00"),
    ],
)
def test_minor_units_are_the_currencys_decimal_amount_exactly(minor, currency, amount):
    assert str(minor_to_amount(minor, currency)) == amount  # with the currency's decimals


def test_a_shop_order_takes_its_amount_and_columns_from_its_content():
    order = ShopOrder(shop_order_body(currency="JPY", total=3480))
    assert order.amount == Decimal(3480)
    assert order.order_fields() == {"number": "1001", "customer_name": "Ada Lovelace", "content_version": 1}


def test_what_a_parcel_or_refund_may_name_counts_each_sku_over_its_lines():
    content = shop_order_body(
        lines=[
            _line("TEA", 2, 100, 200),
            _line("MUG", 1, 50, 50),
            {**_line("TEA", 3, 90, 270), "name": "Old tea"},
        ]
    )
    ordered, names = lines_ordered(content)
    assert ordered == {"TEA": 5, "MUG": 1}
    assert names == {"TEA": "Tea", "MUG": "Mug"}  # the first line's name
