"""Which provider sends: the one MAIL_PROVIDER setting names it (or gives the dotted path
of a provider class of your own, docs/providers.md "Adding a provider")."""

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
    def __call__(self) -> MailProvider: ...

    def configuration_problems(self) -> list[str]: ...

    # Where its delivery events come in; None for a provider that posts none (SMTP).
    def delivery_webhook(self) -> DeliveryWebhook | None: ...


class ProviderNotConfigured(Exception):
    pass


def provider_class() -> ProviderClass:
    choice = settings.MAIL_PROVIDER
    path = PROVIDERS.get(choice, choice)
    if "." not in path:
        raise ProviderNotConfigured(
            f"MAIL_PROVIDER={choice!r} is not a provider: use one of {', '.join(PROVIDERS)} "
            "or the dotted path of a provider class."
        )
    try:
        cls: ProviderClass = import_string(path)
    except ImportError as exc:
        raise ProviderNotConfigured(f"MAIL_PROVIDER={choice!r}: {path} cannot be imported ({exc}).") from exc
    return cls


def provider_configuration_problems() -> list[str]:
    """What keeps the chosen provider from sending, in words; checked at start-up."""
    try:
        return provider_class().configuration_problems()
    except ProviderNotConfigured as exc:
        return [str(exc)]


def delivery_webhook() -> DeliveryWebhook | None:
    """The configured provider's delivery webhook, the only one mounted. Asked per request
    and per event, never cached: tests and the settings of each process may change it."""
    try:
        return provider_class().delivery_webhook()
    except ProviderNotConfigured:  # mail_provider_check says so at start-up
        return None


@cache
def mail_provider() -> MailProvider:
    return provider_class()()
