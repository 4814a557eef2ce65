"""API limits that would otherwise fail on the first request: refused at start-up instead."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, register

from apiauth.rate_limits import rate_parse


@register()
def api_limit_settings_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    try:
        rate_parse(settings.API_THROTTLE_RATE)
    except ValueError as exc:
        return [Error(f"API_THROTTLE_RATE: {exc}", id="apiauth.E001")]
    return []
