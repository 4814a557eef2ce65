"""The shop as its emails show it, from settings (SHOP_* in .env.example): its brand, and the
legal data an EU order confirmation must carry."""

from dataclasses import asdict, dataclass

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
