"""Reading a platform's payload into our order's content, the same way for every platform:
amounts in minor units, texts cut to what an email line carries, an address as the order API
takes it, and the content checked as the API checks an order. A payload without a field we need,
or with one we cannot take, is Unusable with the field's name: never guessed."""

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from intake.shapes import Unusable
from orders.content import COUNTRIES, NAME_TEXT, SHORT_TEXT, ContentMismatch, content_totals_check
from orders.currencies import MoneyRefused, currency_decimals, money_check

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
    """A decimal amount ("12.90", 12.9) in the currency's minor units (1290)."""
    minor = decimal(value, field).scaleb(currency_decimals(currency))
    if minor != minor.to_integral_value():
        raise Unusable(f"{field} {value} has more decimals than {currency} has.")
    return int(minor)


def decimal(value: Any, field: str) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation as exc:
        raise Unusable(f"{field} {value!r} is not a number.") from exc


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


def text(value: Any, limit: int) -> str:
    """Platforms allow longer texts than an email line should carry: cut, with an ellipsis."""
    cut = str(value).strip()
    return cut if len(cut) <= limit else cut[: limit - 1] + "…"


def email_address(address: Any, where: str) -> str:
    if not address:
        raise Unusable(f"The order names no email address ({where}).")
    try:
        validate_email(address)
    except ValidationError as exc:
        raise Unusable(f"The order's email address {address!r} is not one.") from exc
    return str(address)


def address_shaped(values: dict[str, Any], field: str) -> dict[str, Any]:
    """Our address from its values (our field names, a platform's values): checked and cut."""
    country = values.get("country") or ""
    if country not in COUNTRIES:
        raise Unusable(f"{field}: the country {country!r} is not an ISO 3166-1 country code.")
    shaped = {name: text(values[name], limit) for name, limit in ADDRESS_FIELDS.items() if values.get(name)}
    missing = [name for name in ("name", "line1", "city") if not shaped.get(name)]
    if missing:
        raise Unusable(f"{field} lacks {', '.join(missing)}.")
    return shaped


def no_address(field: str) -> Unusable:
    return Unusable(f"The order has no {field}: every order email shows where it goes, for now.")


def locale_offered(code: str) -> str | None:
    """A customer locale of "en-US" is "en" when the service writes emails in it; else None
    (the site's language)."""
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
