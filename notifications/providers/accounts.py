"""The account a provider of the HTTP kind (Resend, Brevo) calls: its base URL and API key.
MAIL_PROVIDER's are MAIL_PROVIDER_URL and MAIL_PROVIDER_API_KEY; a provider named by
MAIL_PROVIDER_FALLBACK has its own (MAIL_PROVIDER_FALLBACK_URL, _API_KEY), since a second
provider is a second company with its own keys. The two never share a name
(notifications/providers/catalogue.py refuses it), so the name tells which account is meant."""

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class ProviderAccount:
    url: str  # empty: the provider's public API
    api_key: str
    url_setting: str  # the settings' names, for the words of a configuration problem
    key_setting: str


def account_of(provider_name: str) -> ProviderAccount:
    if settings.MAIL_PROVIDER_FALLBACK and provider_name == settings.MAIL_PROVIDER_FALLBACK:
        return ProviderAccount(
            url=settings.MAIL_PROVIDER_FALLBACK_URL,
            api_key=settings.MAIL_PROVIDER_FALLBACK_API_KEY,
            url_setting="MAIL_PROVIDER_FALLBACK_URL",
            key_setting="MAIL_PROVIDER_FALLBACK_API_KEY",
        )
    return ProviderAccount(
        url=settings.MAIL_PROVIDER_URL,
        api_key=settings.MAIL_PROVIDER_API_KEY,
        url_setting="MAIL_PROVIDER_URL",
        key_setting="MAIL_PROVIDER_API_KEY",
    )
