"""Which currencies an order may be in and how many decimals its amount may have
(orders/currencies.py, `money_check`): the currency's own (Babel's CLDR data: none, 2 or 3) and
at most the 2 the order keeps, an amount above zero and below 10^10; nothing is rounded.
(tests/integration/api/test_order_amounts.py: the same through the API, as a 400 naming the
field, nothing stored, and the email showing the amount.)"""

from decimal import Decimal

import pytest

from orders.currencies import (
    STORED_DECIMALS,
    MoneyRefused,
    currencies_in_use,
    currency_check,
    currency_decimals,
    money_check,
)

KEEPS_TWO = "but orders keep amounts to 2 decimals"
NOT_ABOVE_ZERO = "The amount must be a number greater than zero."
TOO_LARGE = "The amount must be less than 10,000,000,000."


def _refusal(amount: Decimal | str, currency: str) -> tuple[str, str]:
    with pytest.raises(MoneyRefused) as refused:
        money_check(amount=amount, currency=currency)
    return refused.value.field, str(refused.value)


@pytest.mark.parametrize(
    ("currency", "decimals"),
    [
        ("JPY", 0),
        ("KRW", 0),
        ("CLP", 0),
        ("HUF", 0),  # 2 in ISO 4217, but its fractions are not used: CLDR's 0 applies
        ("IDR", 0),
        ("COP", 0),
        ("IRR", 0),
        ("EUR", 2),
        ("USD", 2),
        ("TWD", 2),
        ("KWD", 3),
        ("BHD", 3),
        ("OMR", 3),
        ("JOD", 3),
        ("TND", 3),
        ("LYD", 3),
    ],
)
def test_each_currency_has_the_decimals_its_customers_see(currency, decimals):
    assert currency_decimals(currency) == decimals


def test_the_currencies_in_use_have_none_two_or_three_decimals_and_these_six_have_three():
    # a Babel upgrade that changes either would change which amounts are taken: look at it
    in_use = currencies_in_use()
    assert {currency_decimals(code) for code in in_use} == {0, 2, 3}
    assert {code for code in in_use if currency_decimals(code) == 3} == {
        "BHD",
        "JOD",
        "KWD",
        "LYD",
        "OMR",
        "TND",
    }
    assert {"EUR", "USD", "JPY", "GBP", "CHF", "KWD"} <= in_use


@pytest.mark.parametrize(
    ("amount", "currency", "kept"),
    [
        # no decimals (JPY, HUF): whole amounts, trailing zeros are no decimals
        ("1500", "JPY", "1500.00"),
        ("1500.000", "JPY", "1500.00"),
        (Decimal(1500), "JPY", "1500.00"),
        ("1", "HUF", "1.00"),
        ("1E+3", "JPY", "1000.00"),
        ("9999999999", "JPY", "9999999999.00"),  # the largest whole amount the column keeps
        # two decimals (EUR)
        ("49.9", "EUR", "49.90"),
        ("49.90", "EUR", "49.90"),
        ("0.01", "EUR", "0.01"),  # the smallest amount above zero
        ("9999999999.99", "EUR", "9999999999.99"),  # the largest
        ("1.", "EUR", "1.00"),
        # three decimals (KWD, BHD): a third decimal of 0 fits the order's two
        ("1.250", "KWD", "1.25"),
        ("0.5", "BHD", "0.50"),
        ("1.2500", "KWD", "1.25"),
        ("0.010", "KWD", "0.01"),
    ],
)
def test_an_amount_that_fits_the_currency_and_the_column_is_kept_exactly(amount, currency, kept):
    checked = money_check(amount=amount, currency=currency)
    assert str(checked) == kept
    assert checked.as_tuple().exponent == -STORED_DECIMALS  # as Order.amount keeps it


@pytest.mark.parametrize(
    ("amount", "currency", "reason"),
    [
        # more decimals than the currency has
        ("0.01", "JPY", "JPY amounts have no decimals, and 0.01 needs 2."),
        ("1500.5", "JPY", "JPY amounts have no decimals, and 1500.5 needs 1."),
        ("1500.50", "JPY", "JPY amounts have no decimals, and 1500.50 needs 1."),
        ("10.50", "HUF", "HUF amounts have no decimals, and 10.50 needs 1."),
        ("12.345", "EUR", "EUR amounts have at most 2 decimals, and 12.345 needs 3."),
        ("0.001", "EUR", "EUR amounts have at most 2 decimals, and 0.001 needs 3."),
        ("1.2345", "KWD", "KWD amounts have at most 3 decimals, and 1.2345 needs 4."),
        ("1E-1000000", "EUR", "EUR amounts have at most 2 decimals, and 1E-1000000 needs 1000000."),
        # as many as the currency has, more than the order keeps: refused, not rounded
        (
            "1.255",
            "KWD",
            f"KWD amounts have at most 3 decimals, {KEEPS_TWO}: 1.255 cannot be kept without rounding. "
            "Send it with at most 2 decimals.",
        ),
        (
            "0.005",
            "BHD",
            f"BHD amounts have at most 3 decimals, {KEEPS_TWO}: 0.005 cannot be kept without rounding. "
            "Send it with at most 2 decimals.",
        ),
        # zero, below it, and no number at all
        ("0", "EUR", NOT_ABOVE_ZERO),
        ("0.00", "EUR", NOT_ABOVE_ZERO),
        ("-0", "EUR", NOT_ABOVE_ZERO),
        ("0E+5", "JPY", NOT_ABOVE_ZERO),
        ("-0.01", "EUR", NOT_ABOVE_ZERO),
        ("-1500", "JPY", NOT_ABOVE_ZERO),
        ("-1.255", "KWD", NOT_ABOVE_ZERO),  # the sign first: there is nothing to round
        ("NaN", "EUR", NOT_ABOVE_ZERO),
        ("sNaN", "EUR", NOT_ABOVE_ZERO),
        ("Infinity", "EUR", NOT_ABOVE_ZERO),
        ("-Infinity", "EUR", NOT_ABOVE_ZERO),
        # as many whole digits as the column has, or more
        ("10000000000", "EUR", TOO_LARGE),
        ("10000000000.00", "EUR", TOO_LARGE),
        ("1E+10", "JPY", TOO_LARGE),
        ("99999999999.5", "EUR", TOO_LARGE),
    ],
)
def test_an_amount_the_currency_or_the_order_cannot_hold_is_refused_on_the_amount(amount, currency, reason):
    assert _refusal(amount, currency) == ("amount", reason)


@pytest.mark.parametrize(
    ("currency", "reason"),
    [
        ("XYZ", "XYZ is not an ISO 4217 currency code."),
        ("eur", "eur is not an ISO 4217 currency code."),  # codes are upper case: nothing is guessed
        ("", " is not an ISO 4217 currency code."),
        *(
            (
                code,
                f"{code} is not legal tender anywhere today (a withdrawn currency, a fund or a precious "
                "metal): use the currency the customer pays in.",
            )
            for code in ("DEM", "HRK", "XAU", "XTS", "CLF", "SLL")
        ),
    ],
)
def test_a_currency_not_in_use_is_refused_on_the_currency_before_the_amount_is_looked_at(currency, reason):
    with pytest.raises(MoneyRefused) as refused:
        currency_check(currency)
    assert (refused.value.field, str(refused.value)) == ("currency", reason)
    # whatever the amount: a good one, or one that would be refused too
    for amount in ("10.00", "0", "1.255"):
        assert _refusal(amount, currency) == ("currency", reason)


def test_a_refusal_is_a_value_error_naming_its_field():
    refused = MoneyRefused("amount", "why")
    assert isinstance(refused, ValueError)
    assert (refused.field, str(refused)) == ("amount", "why")
