"""Settings that only work together: refused at start-up with a clear message."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, register

from notifications.providers.catalogue import provider_configuration_problems

DEVELOPMENT_MAIL_KEY = "dev-mail-key"


@register()
def timing_settings_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    errors = []
    provider_call = (
        settings.MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS + settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS
    )
    if provider_call >= settings.CELERY_TASK_SOFT_TIME_LIMIT:
        errors.append(
            Error(
                f"TASK_SOFT_TIME_LIMIT_SECONDS ({settings.CELERY_TASK_SOFT_TIME_LIMIT}) must exceed the "
                f"provider's connect + read timeouts ({provider_call:g} s), or calls are cut short.",
                id="notifications.E001",
            )
        )
    if settings.CELERY_TASK_TIME_LIMIT <= settings.CELERY_TASK_SOFT_TIME_LIMIT:
        errors.append(
            Error(
                "TASK_TIME_LIMIT_SECONDS must exceed TASK_SOFT_TIME_LIMIT_SECONDS.", id="notifications.E002"
            )
        )
    if settings.NOTIFICATION_LEASE_SECONDS <= settings.CELERY_TASK_TIME_LIMIT:
        errors.append(
            Error(
                f"NOTIFICATION_LEASE_SECONDS ({settings.NOTIFICATION_LEASE_SECONDS}) must exceed "
                f"TASK_TIME_LIMIT_SECONDS ({settings.CELERY_TASK_TIME_LIMIT}): a live provider call must "
                "never lose its lease to a second copy of the event.",
                id="notifications.E003",
            )
        )
    return errors


@register()
def mail_provider_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """A missing or wrong credential stops the process at start-up (workers run these checks
    too), instead of failing every email one by one."""
    problems = provider_configuration_problems()
    if settings.DJANGO_ENV == "production" and settings.MAIL_PROVIDER in ("resend", "brevo"):
        if settings.MAIL_PROVIDER_API_KEY == DEVELOPMENT_MAIL_KEY:
            problems.append("MAIL_PROVIDER_API_KEY is the development simulator's key; set the provider's.")
        if "127.0.0.1" in settings.MAIL_PROVIDER_URL or "localhost" in settings.MAIL_PROVIDER_URL:
            problems.append(
                f"MAIL_PROVIDER_URL={settings.MAIL_PROVIDER_URL} is the local simulator; set it empty for "
                "the provider's public API."
            )
    return [
        Error(f"Mail provider {settings.MAIL_PROVIDER!r}: {problem}", id="notifications.E004")
        for problem in problems
    ]
