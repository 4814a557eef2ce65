"""Reading a platform's payload into our order's content, the same way for every platform:
amounts in minor units, texts cut to what an email line carries, an address as the order API
takes it, and the content checked as the API checks an order. A payload without a field we need,
or with one we cannot take, is Unusable with the field's name: never guessed.

Every value is checked before it is used: an object or a list where the platform documents one
(`mapping`, `objects`), a finite number (`decimal`), a whole count (`count`), text without a
character the database cannot hold (`text`, infra/storable_text.py), an address that fits its
column (`email_address`). What a customer typed at the checkout reaches these fields, and a
delivery that raised anything else would be answered 500: the platform would retry it, then
stop sending (intake/receive.py keeps what still gets past them)."""

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from infra.storable_text import unstorable_character, unstorable_named
from intake.shapes import Unusable
from orders.content import (
    COUNTRIES,
    MAX_MINOR_AMOUNT,
    MAX_QUANTITY,
    NAME_TEXT,
    SHORT_TEXT,
    ContentMismatch,
    content_totals_check,
)
from orders.currencies import MoneyRefused, currency_decimals, money_check
from orders.models import Order

# The order's column: Django's validator takes addresses up to 320 characters, as the RFCs do.
EMAIL_MAX_LENGTH = Order._meta.get_field("customer_email").max_length or 254

# Our address's fields, each with its limit, in the order the order API names them.
ADDRESS_FIELDS = {
    "name": NAME_TEXT,
    "company": NAME_TEXT,
    "line1": NAME_TEXT,
    "line2": NAME_TEXT,
    "postal_code": SHORT_TEXT,
    "city": NAME_TEXT,
    "region": NAME_TEXT,
    "country": 2,
    "phone": SHORT_TEXT,
}


def to_minor(value: Any, field: str, currency: str) -> int:
    """A decimal amount ("12.90", 12.9) in the currency's minor units (1290), within what the
    order API takes (MAX_MINOR_AMOUNT)."""
    amount = decimal(value, field)
    # Compared before it is scaled: 1E+999999999 would overflow the decimal context.
    if abs(amount) > MAX_MINOR_AMOUNT:
        raise Unusable(f"{field} {_shown(value)} is more than any order's amount.")
    minor = amount.scaleb(currency_decimals(currency))
    if minor != minor.to_integral_value():
        raise Unusable(f"{field} {value} has more decimals than {currency} has.")
    if abs(minor) > MAX_MINOR_AMOUNT:
        raise Unusable(f"{field} {_shown(value)} is more than any order's amount.")
    return int(minor)


def decimal(value: Any, field: str) -> Decimal:
    """A finite number, from a JSON number or a decimal string ("Infinity" and "NaN" are not)."""
    try:
        number = Decimal(str(value))
    except InvalidOperation as exc:
        raise Unusable(f"{field} {_shown(value)} is not a number.") from exc
    if not number.is_finite():
        raise Unusable(f"{field} {_shown(value)} is not a finite number.")
    return number


def count(value: Any, field: str) -> int:
    """A quantity: a whole number from 0 to the order API's MAX_QUANTITY (1.5 is not one)."""
    number = decimal(value, field)
    if number != number.to_integral_value() or not 0 <= number <= MAX_QUANTITY:
        raise Unusable(f"{field} {_shown(value)} is not a whole number from 0 to {MAX_QUANTITY}.")
    return int(number)


def iso_time(value: Any, field: str, *, naive_is_utc: bool = False) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise Unusable(f"{field} {value!r} is not an ISO 8601 time.") from exc
    if moment.tzinfo is None:
        if not naive_is_utc:
            raise Unusable(f"{field} {value!r} names no time zone.")
        moment = moment.replace(tzinfo=UTC)
    return moment


def required(obj: dict[str, Any], key: str) -> Any:
    if obj.get(key) is None:
        raise Unusable(f"The payload has no {key}.")
    return obj[key]


def mapping(value: Any, field: str) -> dict[str, Any]:
    """An object the platform documents; {} when it is absent or empty."""
    if not value:
        return {}
    if not isinstance(value, dict):
        raise Unusable(f"{field} is {_kind(value)}, not an object.")
    return value


def listed(value: Any, field: str) -> list[Any]:
    """A list the platform documents; [] when it is absent or empty."""
    if not value:
        return []
    if not isinstance(value, list):
        raise Unusable(f"{field} is {_kind(value)}, not a list.")
    return value


def objects(value: Any, field: str) -> list[dict[str, Any]]:
    """A list of objects the platform documents; [] when it is absent or empty."""
    value = listed(value, field)
    for item in value:
        if not isinstance(item, dict):
            raise Unusable(f"{field} holds {_kind(item)}, not an object.")
    return value


def text(value: Any, limit: int, field: str) -> str:
    """Platforms allow longer texts than an email line should carry: cut, with an ellipsis. A
    NUL or a lone surrogate is refused: no column holds it, and no customer means it."""
    if isinstance(value, dict | list):
        raise Unusable(f"{field} is {_kind(value)}, not text.")
    cut = str(value).strip()
    character = unstorable_character(cut)
    if character is not None:
        raise Unusable(f"{field} contains {unstorable_named(character)}.")
    return cut if len(cut) <= limit else cut[: limit - 1] + "…"


def full_name(person: dict[str, Any], field: str, parts: tuple[str, ...]) -> str:
    """A person's name from its parts (first and last), each checked as the text it is."""
    name = " ".join(text(person[part], NAME_TEXT, f"{field}.{part}") for part in parts if person.get(part))
    return text(name, NAME_TEXT, field)


def email_address(address: Any, where: str) -> str:
    """The customer's address, as the order API takes it: valid, within the order's column
    (Django's validator allows 320 characters, the column 254), and only characters text can hold."""
    if not address:
        raise Unusable(f"The order names no email address ({where}).")
    if not isinstance(address, str):
        raise Unusable(f"{where} is {_kind(address)}, not an email address.")
    if len(address) > EMAIL_MAX_LENGTH:
        raise Unusable(
            f"{where} has {len(address)} characters; an address may have at most {EMAIL_MAX_LENGTH}."
        )
    character = unstorable_character(address)
    if character is not None:
        raise Unusable(f"{where} contains {unstorable_named(character)}.")
    try:
        validate_email(address)
    except ValidationError as exc:
        raise Unusable(f"The order's email address {address!r} is not one.") from exc
    return address


def address_shaped(values: dict[str, Any], field: str, keys: Mapping[str, str]) -> dict[str, Any]:
    """Our address from its values (our field names, a platform's values): checked and cut.
    `keys`: the platform's name of each field, for the reason."""
    country = values.get("country") or ""
    if not isinstance(country, str) or country not in COUNTRIES:
        raise Unusable(f"{field}: the country {_shown(country)} is not an ISO 3166-1 country code.")
    shaped = {
        name: text(values[name], limit, f"{field}.{keys.get(name, name)}")
        for name, limit in ADDRESS_FIELDS.items()
        if values.get(name)
    }
    missing = [name for name in ("name", "line1", "city") if not shaped.get(name)]
    if missing:
        raise Unusable(f"{field} lacks {', '.join(missing)}.")
    return shaped


def no_address(field: str) -> Unusable:
    return Unusable(f"The order has no {field}: every order email shows where it goes, for now.")


def locale_offered(code: Any, field: str) -> str | None:
    """A customer locale of "en-US" is "en" when the service writes emails in it; else None
    (the site's language)."""
    if not code:
        return None
    if not isinstance(code, str):
        raise Unusable(f"{field} {_shown(code)} is not a language code.")
    language = code.replace("_", "-").split("-")[0].lower()
    return language if language in {offered for offered, _ in settings.LANGUAGES} else None


def content_check(content: dict[str, Any]) -> None:
    """What the order API checks of a shop's order: the amounts add up, the total can be taken."""
    try:
        content_totals_check(content)
        money_check(
            amount=Decimal(content["total"]).scaleb(-currency_decimals(content["currency"])),
            currency=content["currency"],
        )
    except ContentMismatch as exc:
        raise Unusable(f"Its amounts do not add up ({exc.field}): {exc}") from exc
    except MoneyRefused as exc:
        raise Unusable(f"Its {exc.field} cannot be taken: {exc}") from exc


CONTENT_LEFT_OUT = "What the order holds now could not be taken, so it was left as it was"


def content_or_why(build: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """The order's content, built and checked, and ""; or None and why it cannot be taken. For
    an order we have, the rest of its delivery (payment, parcels, refunds, cancellation) is
    applied all the same: a fee a shop added later must not cost the customer those emails."""
    try:
        content = build()
        content_check(content)
    except Unusable as exc:
        return None, str(exc)
    return content, ""


def _kind(value: Any) -> str:
    """What a JSON value is, in words."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return str(value).lower()
    return "a number" if isinstance(value, int | float) else "null"


def _shown(value: Any) -> str:
    """A value quoted in a reason: its repr, which escapes what cannot be stored, cut short."""
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:79] + "…"
