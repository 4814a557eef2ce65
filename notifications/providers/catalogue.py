"""Which providers send: the one MAIL_PROVIDER names (or the dotted path of a provider class of
your own, docs/providers.md "Adding a provider"), and the one MAIL_PROVIDER_FALLBACK may name
to take over while the first cannot (notifications/delivery/routing.py)."""

from dataclasses import dataclass
from functools import cache
from typing import Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from notifications.providers.base import DeliveryWebhook, MailProvider

PROVIDERS = {
    "resend": "notifications.providers.resend.ResendProvider",
    "brevo": "notifications.providers.brevo.BrevoProvider",
    "ses": "notifications.providers.ses.SesProvider",
    "anymail": "notifications.providers.anymail.AnymailProvider",
    "smtp": "notifications.providers.smtp.SmtpMailProvider",
}


class ProviderClass(Protocol):
    name: str

    def __call__(self) -> MailProvider: ...

    def configuration_problems(self) -> list[str]: ...

    # Where its delivery events come in; None for a provider that posts none (SMTP).
    def delivery_webhook(self) -> DeliveryWebhook | None: ...


class ProviderNotConfigured(Exception):
    pass


@dataclass(frozen=True)
class Providers:
    """The provider that sends, and the one that takes over while it cannot (or none)."""

    primary: MailProvider
    fallback: MailProvider | None = None

    @property
    def in_order(self) -> list[MailProvider]:
        return [self.primary] if self.fallback is None else [self.primary, self.fallback]

    def named(self, name: str) -> MailProvider | None:
        return next((provider for provider in self.in_order if provider.name == name), None)


def provider_class(choice: str | None = None, *, setting: str = "MAIL_PROVIDER") -> ProviderClass:
    choice = settings.MAIL_PROVIDER if choice is None else choice
    path = PROVIDERS.get(choice, choice)
    if "." not in path:
        raise ProviderNotConfigured(
            f"{setting}={choice!r} is not a provider: use one of {', '.join(PROVIDERS)} "
            "or the dotted path of a provider class."
        )
    try:
        cls: ProviderClass = import_string(path)
    except ImportError as exc:
        raise ProviderNotConfigured(f"{setting}={choice!r}: {path} cannot be imported ({exc}).") from exc
    return cls


def fallback_class() -> ProviderClass | None:
    if not settings.MAIL_PROVIDER_FALLBACK:
        return None
    return provider_class(settings.MAIL_PROVIDER_FALLBACK, setting="MAIL_PROVIDER_FALLBACK")


def provider_configuration_problems() -> list[str]:
    """What keeps the chosen providers from sending, in words; checked at start-up."""
    try:
        primary = provider_class()
        problems = primary.configuration_problems()
        fallback = fallback_class()
    except ProviderNotConfigured as exc:
        return [str(exc)]
    if fallback is None:
        return problems
    if fallback.name == primary.name:
        # One circuit, one sending rate and one webhook per name: the same provider twice
        # would be one provider whose outage is also its fallback's.
        return [*problems, f"MAIL_PROVIDER_FALLBACK names {fallback.name}, the provider that already sends."]
    return problems + [f"MAIL_PROVIDER_FALLBACK: {problem}" for problem in fallback.configuration_problems()]


def delivery_webhooks() -> list[DeliveryWebhook]:
    """The configured providers' delivery webhooks, the only ones mounted. Asked per request
    and per event, never cached: tests and the settings of each process may change them."""
    webhooks = []
    for find in (provider_class, fallback_class):
        try:
            chosen = find()
        except ProviderNotConfigured:  # mail_provider_check says so at start-up
            continue
        webhook = chosen.delivery_webhook() if chosen is not None else None
        if webhook is not None:
            webhooks.append(webhook)
    return webhooks


@cache
def mail_provider() -> MailProvider:
    return provider_class()()


def fallback_provider() -> MailProvider | None:
    # Built once per setting: the fallback's settings in force (tests change them) pick it.
    return _fallback_built(
        settings.MAIL_PROVIDER_FALLBACK,
        settings.MAIL_PROVIDER_FALLBACK_URL,
        settings.MAIL_PROVIDER_FALLBACK_API_KEY,
    )


@cache
def _fallback_built(choice: str, url: str, api_key: str) -> MailProvider | None:
    cls = fallback_class()
    return cls() if cls is not None else None


def mail_providers() -> Providers:
    return Providers(mail_provider(), fallback_provider())
