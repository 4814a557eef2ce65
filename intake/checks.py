"""Start-up checks of the platforms' settings."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, register


@register()
def platform_edit_cap_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """A cap below 1 would leave out every change a shop makes on its platform: a cap, not a
    switch."""
    cap = settings.PLATFORM_EDITS_PER_ORDER_MAX
    if cap >= 1:
        return []
    return [
        Error(
            f"PLATFORM_EDITS_PER_ORDER_MAX is {cap}: write at least 1 (how many times a shop's platform may "
            "change one order's lines).",
            id="intake.E001",
        )
    ]
