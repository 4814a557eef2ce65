"""Which currencies an order may be in, and how many decimals its amount may have.

Both come from Babel's CLDR data, the data the customer's email is formatted with
(notifications/content/formatting.py): the ISO 4217 codes that are legal tender somewhere
today, and each one's decimals (JPY none, EUR 2, KWD 3). Where CLDR gives a currency fewer
decimals than ISO 4217's nominal minor unit because its fractions are not used (HUF, IDR,
COP, IRR: 0 in CLDR, 2 in ISO 4217), the fewer apply: an amount is taken only if every
place that shows it can show it exactly.

Order.amount keeps 2 decimals. A currency with 3 (KWD, BHD, OMR, JOD, TND, LYD) is accepted
with amounts whose third decimal is 0, and anything finer is refused rather than rounded:
widening the column would rewrite the orders table, change the amount every client reads
("49.90" would become "49.900"), and change the request fingerprint of an idempotent retry
that crosses the deploy.
"""

from decimal import Decimal
from functools import cache

from babel import Locale
from babel.numbers import get_currency_precision, get_territory_currencies, list_currencies

STORED_DECIMALS = 2  # Order.amount's decimal_places
STORED_WHOLE_DIGITS = 10  # Order.amount's max_digits (12) less its decimals


class MoneyRefused(ValueError):
    """The amount or currency of an order cannot be taken; `field` says which, the message why."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def money_check(*, amount: Decimal | str, currency: str) -> Decimal:
    """The amount as Order.amount keeps it, if `currency` is in use and the amount fits both
    the currency and the column exactly; otherwise MoneyRefused."""
    currency_check(currency)
    amount = Decimal(amount)
    if not amount.is_finite() or amount <= 0:
        raise MoneyRefused("amount", "The amount must be a number greater than zero.")
    decimals, whole_digits = _decimals_and_whole_digits(amount)
    allowed = currency_decimals(currency)
    if decimals > allowed:
        raise MoneyRefused("amount", f"{currency} {_allows(allowed)}, and {amount} needs {decimals}.")
    if decimals > STORED_DECIMALS:
        raise MoneyRefused(
            "amount",
            f"{currency} {_allows(allowed)}, but orders keep amounts to {STORED_DECIMALS} decimals: "
            f"{amount} cannot be kept without rounding. Send it with at most {STORED_DECIMALS} decimals.",
        )
    if whole_digits > STORED_WHOLE_DIGITS:
        raise MoneyRefused("amount", f"The amount must be less than {10**STORED_WHOLE_DIGITS:,}.")
    return amount.quantize(Decimal(1).scaleb(-STORED_DECIMALS))  # exact: checked above


def currency_check(currency: str) -> None:
    if currency in currencies_in_use():
        return
    if currency in list_currencies():
        raise MoneyRefused(
            "currency",
            f"{currency} is not legal tender anywhere today (a withdrawn currency, a fund or a "
            "precious metal): use the currency the customer pays in.",
        )
    raise MoneyRefused("currency", f"{currency} is not an ISO 4217 currency code.")


def currency_decimals(currency: str) -> int:
    return get_currency_precision(currency)


def amount_minor(amount: Decimal, currency: str) -> int:
    """A decimal amount in its currency's minor units (49.90 EUR → 4990)."""
    return int(Decimal(amount).scaleb(currency_decimals(currency)))


@cache  # Babel's data changes only with its version
def currencies_in_use() -> frozenset[str]:
    """The codes that are legal tender in some territory today."""
    territories = [code for code in Locale("en").territories if isinstance(code, str)]
    return frozenset(
        currency for territory in territories for currency in get_territory_currencies(territory)
    )


def _decimals_and_whole_digits(amount: Decimal) -> tuple[int, int]:
    """Read off the digits, not computed: a decimal context's precision and exponent limits
    would round or refuse an amount such as 1E-1000000 that a client may send."""
    _, digits, exponent = amount.as_tuple()
    assert isinstance(exponent, int)  # a finite amount
    while exponent < 0 and len(digits) > 1 and digits[-1] == 0:  # 1.50 has one decimal
        digits, exponent = digits[:-1], exponent + 1
    return max(0, -exponent), max(0, len(digits) + exponent)


def _allows(decimals: int) -> str:
    if decimals == 0:
        return "amounts have no decimals"
    return f"amounts have at most {decimals} decimal{'s' if decimals > 1 else ''}"
