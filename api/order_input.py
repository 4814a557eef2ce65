"""The body of POST /api/orders/ in its two forms.

- The shop's order: its own number, the customer, the lines, where they go, shipping,
  discounts, taxes and the total, amounts in the currency's minor units (orders/content.py).
- The short order of the API's first release (address, amount, currency), still accepted so
  the clients written for it keep working.

A body naming `number` or `lines` is a shop's order; any other is a short one. Each form
refuses fields it does not know, so a misspelt field is a 400, never silently dropped.
"""

import json
from typing import Any

from django.conf import settings
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from api.validators import reject_invisible_characters
from orders.content import (
    COUNTRIES,
    MAX_DISCOUNTS,
    MAX_LINES,
    MAX_MINOR_AMOUNT,
    MAX_QUANTITY,
    NAME_TEXT,
    SHORT_TEXT,
    ContentMismatch,
    ShopOrder,
    content_totals_check,
    minor_to_amount,
)
from orders.currencies import MoneyRefused, money_check

SHOP_ORDER_FIELDS = {"number", "lines"}


class StrictSerializer(serializers.Serializer):
    """Refuses the fields it does not declare, at its own level of the body."""

    unknown_field_message = "This field is not part of an order."

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise ValidationError({name: [self.unknown_field_message] for name in unknown})
        return super().to_internal_value(data)


def text_field(max_length: int, *, required: bool = True, help_text: str = "") -> serializers.CharField:
    return serializers.CharField(
        max_length=max_length,
        required=required,
        allow_blank=not required,
        validators=[reject_invisible_characters],
        help_text=help_text,
    )


def minor_field(*, min_value: int = 0, required: bool = True, help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=min_value, max_value=MAX_MINOR_AMOUNT, required=required, help_text=help_text
    )


def _currency() -> serializers.RegexField:
    return serializers.RegexField(
        r"^[A-Z]{3}$",
        error_messages={"invalid": "Use a three-letter ISO 4217 code such as EUR."},
        help_text="An ISO 4217 code of a currency that is legal tender today.",
    )


def _locale() -> serializers.CharField:
    return serializers.CharField(
        required=False,
        max_length=8,
        validators=[_offered_language],
        help_text="The customer's language for the order's emails; the site's language when absent.",
    )


def _offered_language(value: str) -> None:
    known = [code for code, _ in settings.LANGUAGES]
    if value not in known:
        raise ValidationError(f"Unknown language {value!r}: use one of {', '.join(known)}.")


class LineInput(StrictSerializer):
    sku = text_field(SHORT_TEXT, help_text="The shop's article number.")
    name = text_field(NAME_TEXT, help_text="The product as the customer knows it.")
    quantity = serializers.IntegerField(min_value=1, max_value=MAX_QUANTITY)
    unit_price = minor_field(help_text="The price of one, in minor units.")
    total = minor_field(help_text="quantity times unit_price, in minor units.")
    tax_rate = serializers.DecimalField(
        max_digits=5,
        decimal_places=4,
        min_value=0,
        max_value=1,
        help_text='The tax rate as a fraction: "0.19" for 19 %.',
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Kept as the decimal string of its value ("0.19", not "0.1900"): JSON numbers are
        # binary fractions, and the stored order should say what was meant.
        attrs["tax_rate"] = format(attrs["tax_rate"].normalize(), "f")
        return attrs


class AddressInput(StrictSerializer):
    name = text_field(NAME_TEXT, help_text="Who receives it.")
    company = text_field(NAME_TEXT, required=False)
    line1 = text_field(NAME_TEXT, help_text="Street and house number.")
    line2 = text_field(NAME_TEXT, required=False)
    postal_code = text_field(SHORT_TEXT, required=False, help_text="Absent where the country has none.")
    city = text_field(NAME_TEXT)
    region = text_field(
        NAME_TEXT, required=False, help_text="State, province or county, where the post needs one."
    )
    country = serializers.RegexField(r"^[A-Z]{2}$", help_text="ISO 3166-1 alpha-2 code, e.g. DE.")
    phone = text_field(SHORT_TEXT, required=False)

    def validate_country(self, value: str) -> str:
        if value not in COUNTRIES:
            raise ValidationError(f"{value} is not an ISO 3166-1 country code.")
        return value


class ShippingInput(StrictSerializer):
    method = text_field(NAME_TEXT, help_text="How it is delivered, as the customer chose it.")
    price = minor_field(help_text="What delivery costs, in minor units.")


class DiscountInput(StrictSerializer):
    code = text_field(SHORT_TEXT, required=False, help_text="The code the customer entered, if any.")
    description = text_field(NAME_TEXT, required=False)
    amount = minor_field(min_value=1, help_text="What it takes off the order, in minor units.")


@extend_schema_serializer(component_name="ShopOrderInput")
class ShopOrderInput(StrictSerializer):
    number = text_field(
        SHORT_TEXT, help_text="The shop's order number, shown to the customer; unique per API token."
    )
    customer_email = serializers.EmailField(max_length=254, validators=[reject_invisible_characters])
    customer_name = text_field(NAME_TEXT)
    currency = _currency()
    locale = _locale()
    lines = serializers.ListField(child=LineInput(), min_length=1, max_length=MAX_LINES)
    shipping_address = AddressInput()
    billing_address = AddressInput(required=False)
    shipping = ShippingInput(required=False)
    discounts = serializers.ListField(child=DiscountInput(), required=False, max_length=MAX_DISCOUNTS)
    tax_total = minor_field(required=False, help_text="The taxes in the total, as the shop computed them.")
    payment_method = text_field(
        NAME_TEXT,
        required=False,
        help_text='How the customer pays, in words the confirmation shows ("Credit card, paid").',
    )
    total = minor_field(min_value=1, help_text="lines + shipping - discounts, in minor units.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            content_totals_check(attrs)
            money_check(amount=minor_to_amount(attrs["total"], attrs["currency"]), currency=attrs["currency"])
        except ContentMismatch as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        except MoneyRefused as exc:
            raise ValidationError({"total" if exc.field == "amount" else exc.field: [str(exc)]}) from exc
        return attrs


@extend_schema_serializer(component_name="ShortOrderInput")
class ShortOrderInput(StrictSerializer):
    customer_email = serializers.EmailField(max_length=254, validators=[reject_invisible_characters])
    # Its decimals depend on the currency (JPY none, EUR 2): validate() checks them.
    amount = serializers.DecimalField(
        max_digits=None,
        decimal_places=None,
        help_text="Greater than zero, with no more decimals than the currency has "
        "(JPY none, EUR 2) and at most 2.",
    )
    currency = _currency()
    locale = _locale()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            attrs["amount"] = money_check(amount=attrs["amount"], currency=attrs["currency"])
        except MoneyRefused as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return attrs


ORDER_INPUT_SCHEMA = PolymorphicProxySerializer(
    component_name="OrderCreateInput",
    serializers=[ShopOrderInput, ShortOrderInput],
    resource_type_field_name=None,
)


def order_input_serializer(data: dict[str, Any]) -> ShopOrderInput | ShortOrderInput:
    """The form the body is written in, bound to it."""
    if SHOP_ORDER_FIELDS & set(data):
        return ShopOrderInput(data=data)
    return ShortOrderInput(data=data)


def order_arguments(serializer: ShopOrderInput | ShortOrderInput) -> dict[str, Any]:
    """What `order_create_idempotent` takes, from a validated body of either form."""
    attrs = serializer.validated_data
    if isinstance(serializer, ShortOrderInput):
        return dict(attrs)
    # The document as stored: plain dicts and lists (the validated data holds DRF's own types;
    # every value is already JSON, tax rates included, LineInput.validate).
    content = json.loads(json.dumps(attrs))
    shop_order = ShopOrder(content)
    return {
        "customer_email": content["customer_email"],
        "amount": shop_order.amount,
        "currency": content["currency"],
        "locale": content.get("locale"),
        "shop_order": shop_order,
    }
