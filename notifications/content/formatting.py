"""Amounts and dates the way the customer's language writes them (Babel's CLDR data):
49.90 EUR is "€49.90" in English and "49,90 €" in Russian."""

from datetime import date
from decimal import Decimal

from babel.dates import format_date
from babel.numbers import format_currency


def money_format(amount: Decimal, currency: str, locale: str) -> str:
    """With the currency's decimals (¥1,500, €49.90, 1,250 KWD), and never fewer than the
    amount has: Babel would otherwise round to the currency's decimals, and ¥0.01 would read
    "¥0". The API refuses such amounts (orders/currencies.py); an order stored before that
    rule is still shown as it is."""
    return format_currency(amount, currency, locale=babel_locale(locale), decimal_quantization=False)


def date_format(day: date, locale: str) -> str:
    return format_date(day, format="long", locale=babel_locale(locale))


def babel_locale(locale: str) -> str:
    return locale.replace("-", "_")  # Django's "en-us" is Babel's "en_US"
