"""The mail provider interface. Real providers plug in behind it, one module each, chosen
by the MAIL_PROVIDER_CLASS setting (like Django's EMAIL_BACKEND)."""

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from functools import cache
from typing import Protocol

from django.conf import settings
from django.utils.module_loading import import_string


class Outcome(StrEnum):
    ACCEPTED = "accepted"
    TRANSIENT = "transient"  # definitely not sent; try again later
    PERMANENT = "permanent"  # will never be sent as it is
    UNKNOWN = "unknown"  # may or may not have been sent
    IN_FLIGHT = "in_flight"  # the provider is still processing this key
    KEY_CONFLICT = "key_conflict"  # same key, different content: something was sent before


@dataclass(frozen=True)
class OutboundEmail:
    idempotency_key: str
    to: str
    subject: str
    text: str
    event_id: str  # travels to the provider as a header, so one id finds the email everywhere


@dataclass(frozen=True)
class SendResult:
    outcome: Outcome
    provider_message_id: str = ""
    http_status: int | None = None
    error_code: str = ""
    detail: str = ""
    retry_after: float | None = None


class MailProvider(Protocol):
    name: str
    # How long the provider remembers an idempotency key; None if it does not dedupe.
    idempotency_window: timedelta | None

    def send(self, email: OutboundEmail) -> SendResult:
        """Send once. Classifies every failure into an Outcome; never raises for provider errors."""
        ...


@cache
def mail_provider() -> MailProvider:
    return import_string(settings.MAIL_PROVIDER_CLASS)()
