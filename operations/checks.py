"""Settings the operators' tools need from the rest of the product: refused at start-up."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import Error, register

from operations.reconciliation.run import LEDGER_DAYS


@register()
def provider_event_retention_check(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[Error]:
    """The daily reconciliation compares our sent emails of the last LEDGER_DAYS days with the
    provider's events: deleted sooner, every such email would look unconfirmed."""
    if settings.PROVIDER_EVENT_RETENTION_DAYS >= LEDGER_DAYS:
        return []
    return [
        Error(
            f"PROVIDER_EVENT_RETENTION_DAYS ({settings.PROVIDER_EVENT_RETENTION_DAYS}) must be at least "
            f"{LEDGER_DAYS}: the daily reconciliation compares that many days of sent emails with them.",
            id="notifications.E007",  # kept from notifications/checks.py: docs name it
        )
    ]
