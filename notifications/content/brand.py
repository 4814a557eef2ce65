"""The shop as its emails show it, from settings (SHOP_* in .env.example): its brand, and the
legal data an EU order confirmation must carry. An order of a connected shop (shops.Shop) is
presented as that shop: each of its fields that is filled in replaces the setting's.

An email comes from MAIL_FROM_ADDRESS, or from its connected shop's sender."""

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from django.conf import settings


@dataclass(frozen=True)
class Brand:
    name: str
    url: str
    logo_url: str
    primary_color: str
    text_color: str
    footer_address: str
    support_email: str
    legal_name: str
    legal_address: str
    phone: str
    register: str
    terms_url: str
    withdrawal_url: str
    withdrawal_days: int

    def as_context(self) -> dict[str, str | int]:
        return asdict(self)


def brand_from_settings() -> Brand:
    return Brand(
        name=settings.SHOP_NAME,
        url=settings.SHOP_URL,
        logo_url=settings.SHOP_LOGO_URL,
        primary_color=settings.SHOP_PRIMARY_COLOR,
        text_color=settings.SHOP_TEXT_COLOR,
        footer_address=settings.SHOP_FOOTER_ADDRESS,
        support_email=settings.SHOP_SUPPORT_EMAIL,
        legal_name=settings.SHOP_LEGAL_NAME,
        legal_address=settings.SHOP_LEGAL_ADDRESS,
        phone=settings.SHOP_PHONE,
        register=settings.SHOP_REGISTER,
        terms_url=settings.SHOP_TERMS_URL,
        withdrawal_url=settings.SHOP_WITHDRAWAL_URL,
        withdrawal_days=settings.SHOP_WITHDRAWAL_DAYS,
    )


def brand_of_shop(shop: dict[str, Any] | None) -> Brand:
    """The brand of an order's connected shop (its row's fields, as a dict), each empty field
    the setting's; the settings' brand for an order of no shop."""
    brand = brand_from_settings()
    if not shop:
        return brand
    own: dict[str, Any] = {
        field.name: shop[field.name] for field in fields(Brand) if shop.get(field.name) not in (None, "")
    }
    return replace(brand, **own)


def sender_of_shop(shop: dict[str, Any] | None) -> str:
    """Who the order's emails come from: the shop's sender, else MAIL_FROM_ADDRESS."""
    return (shop or {}).get("sender") or settings.MAIL_FROM_ADDRESS
