"""Backbone settings that only work together: refused at start-up with a clear message."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, register

from messaging.registry import event_types


@register()
def relay_timing_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    if settings.OUTBOX_CLAIM_LEASE_SECONDS <= settings.OUTBOX_CONFIRM_TIMEOUT_SECONDS + 5:
        return [
            Error(
                "OUTBOX_CLAIM_LEASE_SECONDS must exceed OUTBOX_CONFIRM_TIMEOUT_SECONDS plus the 5 s connect "
                "timeout, or two relays publish the same rows.",
                id="messaging.E001",
            )
        ]
    return []


@register()
def event_catalogues_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """A catalogue that does not load, or a handler that does not import, would fail every
    event of its type; say so before a worker takes one."""
    try:
        types = event_types()
    except Exception as exc:
        return [Error(f"MESSAGING_EVENT_CATALOGUES cannot be read: {exc}", id="messaging.E002")]
    errors = []
    for event_type in types.values():
        try:
            event_type.handler_function()
            event_type.record_hook_function()
        except ImportError as exc:
            errors.append(Error(f"Event type {event_type.name}: {exc}", id="messaging.E003"))
    return errors
