"""Deployment checks of our own, beside Django's `check --deploy`, and the web's refusal to
serve in production while that command reports an error."""

import logging
from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Tags, Warning, register, run_checks
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)


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


def deploy_check_refusal() -> None:
    """In production, raise ImproperlyConfigured with every error `manage.py check --deploy`
    reports (its warnings go to the log). gunicorn runs no system checks (Celery's workers do,
    as they start), so a setting the checks call an error would otherwise surface request by
    request; config/wsgi.py calls this as each web process loads, and gunicorn exits when its
    workers cannot boot."""
    if settings.DJANGO_ENV != "production":
        return
    messages = [found for found in run_checks(include_deployment_checks=True) if not found.is_silenced()]
    for message in messages:
        if not message.is_serious():
            logger.warning("check --deploy: %s", message)
    errors = [str(message) for message in messages if message.is_serious()]
    if errors:
        raise ImproperlyConfigured(
            "The web serves nothing in production while `manage.py check --deploy` reports an error:\n"
            + "\n".join(errors)
        )
