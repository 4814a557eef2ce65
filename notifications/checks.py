"""Settings that only work together: refused at start-up with a clear message."""

import re
from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, Tags, register
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connections

from notifications.content.errors import RenderError
from notifications.content.overrides import override_check
from notifications.models import EmailTemplateVersion
from notifications.providers.accounts import ProviderAccount, account_of
from notifications.providers.catalogue import delivery_webhooks, provider_configuration_problems
from notifications.providers.production_url import production_url_problems

DEVELOPMENT_MAIL_KEY = "dev-mail-key"

MIN_WITHDRAWAL_DAYS = 14


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
    lock_wait = settings.DELIVERY_LOCK_WAIT_SECONDS
    if not 0 < lock_wait < settings.CELERY_TASK_SOFT_TIME_LIMIT:
        errors.append(
            Error(
                f"DELIVERY_LOCK_WAIT_SECONDS ({lock_wait:g}) must be above 0 and below "
                f"TASK_SOFT_TIME_LIMIT_SECONDS ({settings.CELERY_TASK_SOFT_TIME_LIMIT}): a claim that waits "
                "for an order's row longer than that is cut by the time limit, with its whole batch.",
                id="notifications.E009",
            )
        )
    return errors


@register()
def mail_provider_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """A missing or wrong credential stops the process at start-up (workers run these checks
    too), instead of failing every email one by one."""
    problems = provider_configuration_problems()
    if settings.DJANGO_ENV == "production":
        for name in (settings.MAIL_PROVIDER, settings.MAIL_PROVIDER_FALLBACK):
            if name in ("resend", "brevo"):
                problems += _production_account_problems(account_of(name))
    if (
        settings.DJANGO_ENV == "production"
        and settings.MAIL_PROVIDER == "ses"
        and settings.AWS_SES_ENDPOINT_URL
    ):
        # empty: AWS's own endpoint of the region; a local one (moto) serves only development
        problems += production_url_problems(settings.AWS_SES_ENDPOINT_URL, setting="AWS_SES_ENDPOINT_URL")
    return [
        Error(f"Mail provider {settings.MAIL_PROVIDER!r}: {problem}", id="notifications.E004")
        for problem in problems
    ]


def _production_account_problems(account: ProviderAccount) -> list[str]:
    problems = []
    if account.api_key == DEVELOPMENT_MAIL_KEY:
        problems.append(f"{account.key_setting} is the development simulator's key; set the provider's.")
    if account.url:  # empty: the provider's public API
        problems += production_url_problems(account.url, setting=account.url_setting)
    return problems


@register()
def delivery_webhook_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """In production the configured provider's delivery webhook must be able to tell its
    requests from forged ones: a forged bounce or complaint suppresses a customer's address,
    and a forged delivery settles an email nobody knows was sent. (Elsewhere the endpoint
    answers 503 with the same words until its secret is set.)"""
    if settings.DJANGO_ENV != "production":
        return []
    return [
        Error(
            f"Mail provider {webhook.esp!r}: its delivery webhook /webhooks/{webhook.path} "
            f"cannot verify requests. {problem}",
            id="notifications.E006",
        )
        for webhook in delivery_webhooks()
        for problem in webhook.verification_problems()
    ]


HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@register()
def email_content_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """The shop's brand and languages as the emails use them: a broken logo link or an
    unknown default language would otherwise show up only in customers' inboxes."""
    problems = []
    offered = [code for code, _ in settings.LANGUAGES]
    if settings.LANGUAGE_CODE not in offered:
        problems.append(f"SHOP_DEFAULT_LOCALE={settings.LANGUAGE_CODE!r} is not one of {', '.join(offered)}.")
    for name in ("SHOP_URL", "SHOP_LOGO_URL", "SHOP_TERMS_URL", "SHOP_WITHDRAWAL_URL"):
        value = getattr(settings, name)
        if not value.startswith("https://"):
            problems.append(
                f"{name}={value!r} must be an absolute https:// URL: "
                "a mail client has no page to resolve a relative one against."
            )
    for name in ("SHOP_PRIMARY_COLOR", "SHOP_TEXT_COLOR"):
        value = getattr(settings, name)
        if not HEX_COLOUR.match(value):
            problems.append(f"{name}={value!r} must be a colour written #rrggbb.")
    try:
        validate_email(settings.SHOP_SUPPORT_EMAIL)
    except ValidationError:
        problems.append(f"SHOP_SUPPORT_EMAIL={settings.SHOP_SUPPORT_EMAIL!r} is not an email address.")
    for name in ("SHOP_NAME", "SHOP_FOOTER_ADDRESS"):
        if not getattr(settings, name).strip():
            problems.append(f"{name} is empty; every email shows it.")
    for name in ("SHOP_LEGAL_NAME", "SHOP_LEGAL_ADDRESS"):
        if not getattr(settings, name).strip():
            problems.append(f"{name} is empty; an EU order confirmation must name who sells, and where.")
    if settings.SHOP_WITHDRAWAL_DAYS < MIN_WITHDRAWAL_DAYS:
        problems.append(
            f"SHOP_WITHDRAWAL_DAYS={settings.SHOP_WITHDRAWAL_DAYS}: the right of withdrawal is at least "
            f"{MIN_WITHDRAWAL_DAYS} days in the EU (Directive 2011/83/EU, art. 9)."
        )
    return [Error(problem, id="notifications.E005") for problem in problems]


@register(Tags.database)
def live_email_templates_check(
    app_configs: Sequence[AppConfig] | None, databases: Sequence[str] | None = None, **kwargs: Any
) -> list[Error]:
    """Every live wording still renders under the template language of this release. One
    published under an earlier, wider language (a filter, `{% if %}`) would fail every email
    of its kind from the first send after the upgrade, so `migrate` (which runs the database
    checks, naming its database) refuses until it is retired or replaced; the running
    release's admin can do both. Without a database named (a process starting), it reads none."""
    errors = []
    for alias in databases or ():
        if "notifications_emailtemplateversion" not in connections[alias].introspection.table_names():
            continue  # a database before its first migration: nothing is live
        live = EmailTemplateVersion.objects.using(alias).filter(
            published_at__isnull=False, retired_at__isnull=True
        )
        errors += [_live_version_problem(version) for version in live]
    return [error for error in errors if error is not None]


def _live_version_problem(version: EmailTemplateVersion) -> Error | None:
    try:
        override_check(
            kind=version.kind,
            locale=version.locale,
            subject=version.subject,
            text=version.text,
            html=version.html,
        )
    except RenderError as exc:
        return Error(
            f"The live wording {version} does not render under this release: {exc}",
            hint="In the admin of the release still running, retire it or publish a version that "
            "renders, then migrate again (docs/email-content.md).",
            id="notifications.E008",
        )
    return None
