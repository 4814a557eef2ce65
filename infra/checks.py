"""Deployment checks of our own, beside Django's `check --deploy`."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def production_profile_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Warning]:
    # The start-up refusals of a weak key or debug pages (config/settings/base.py) apply only
    # with DJANGO_ENV=production; a deploy that forgot it would run without them.
    if settings.DJANGO_ENV == "production":
        return []
    return [
        Warning(
            f"DJANGO_ENV is {settings.DJANGO_ENV!r}: a deployment sets DJANGO_ENV=production, so that "
            "a development secret key or DJANGO_DEBUG=true refuse to start.",
            id="infra.W001",
        )
    ]
