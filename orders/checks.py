"""Start-up checks of the orders' settings: a misspelt choice would silently issue no invoice."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, register

from orders.invoicing.issue import CONFIRMED, OFF, PAID


@register()
def invoice_settings_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    errors = []
    if settings.INVOICE_ISSUED_WHEN not in (PAID, CONFIRMED, OFF):
        errors.append(
            Error(
                f"INVOICE_ISSUED_WHEN is {settings.INVOICE_ISSUED_WHEN!r}: write {PAID!r} (when the order "
                f"is paid), {CONFIRMED!r} (when it is placed) or {OFF!r}.",
                id="orders.E001",
            )
        )
    for name in ("INVOICE_NUMBER_PREFIX", "CREDIT_NOTE_NUMBER_PREFIX"):
        prefix = getattr(settings, name)
        # printed on the document, in its file name and its address: no control character
        if len(prefix) > 20 or any(ord(c) < 32 or c in '\\"' for c in prefix):
            errors.append(
                Error(
                    f"{name} is {prefix!r}: at most 20 characters, without a backslash, a quote or "
                    "a control character (it is part of the PDF's file name).",
                    id="orders.E002",
                )
            )
    return errors
