"""Amounts and dates the way the customer's language writes them (Babel's CLDR data):
49.90 EUR is "€49.90" in English and "49,90 €" in Russian."""

from datetime import date
from decimal import Decimal

from babel.dates import format_date
from babel.numbers import format_currency


def money_format(amount: Decimal, currency: str, locale: str) -> str:
    return format_currency(amount, currency, locale=_babel_locale(locale))


def date_format(day: date, locale: str) -> str:
    return format_date(day, format="long", locale=_babel_locale(locale))


def _babel_locale(locale: str) -> str:
    return locale.replace("-", "_")  # Django's "en-us" is Babel's "en_US"
