"""The mail provider interface. Each provider is one module behind it, chosen by the one
MAIL_PROVIDER setting (notifications/providers/catalogue.py), and declares what it promises
about a resend under the same key (the delivery rules read those capabilities, never a name)
and where its delivery events come in (its `DeliveryWebhook`: the only one mounted)."""

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Protocol

from django.conf import settings
from django.http import HttpRequest, HttpResponse

# Every send carries our idempotency key under this tag/metadata name; the provider's
# delivery events bring it back, which is how an event finds its notification.
KEY_TAG = "idempotency_key"
# The key of a test email (manage.py send_test_email) starts with this: it belongs to no
# notification, and its delivery events are stored for the record and change nothing.
TEST_KEY_PREFIX = "test-"


class Outcome(StrEnum):
    ACCEPTED = "accepted"
    TRANSIENT = "transient"  # definitely not sent; try again later
    PERMANENT = "permanent"  # will never be sent as it is
    UNKNOWN = "unknown"  # may or may not have been sent
    IN_FLIGHT = "in_flight"  # the provider is still processing this key
    KEY_CONFLICT = "key_conflict"  # same key, different content: something was sent before
    # The provider refused a repeat of a key it accepted before, without saying the first
    # message's id (Brevo): sent, but only the provider's events can confirm which message.
    ACCEPTED_EARLIER = "accepted_earlier"


@dataclass(frozen=True)
class Capabilities:
    """What a resend under the same key does at this provider, and how many calls its client
    takes at once."""

    # How long the provider remembers a key; None if it does not dedupe at all (a resend
    # after an unknown outcome could send a second email).
    key_window: timedelta | None
    # A resend inside the window answers with the first message's id (Resend), rather than
    # a bare "duplicate" (Brevo).
    replays_message_id: bool
    # A resend while the first request still runs is answered "in flight" (a 409), not
    # processed a second time.
    reports_key_in_flight: bool
    # The same key with a different body is refused as a conflict rather than replayed.
    reports_changed_body: bool
    # How many calls of a batch one worker process makes at the same time, from threads of its
    # own: 1 unless the provider's client is thread-safe (a batch's size bounds it too).
    concurrent_calls: int = 1

    @property
    def dedupes(self) -> bool:
        return self.key_window is not None


NO_DEDUPE = Capabilities(
    key_window=None, replays_message_id=False, reports_key_in_flight=False, reports_changed_body=False
)
# A thread-safe client (a requests session, a boto3 client) sets no limit of its own: every
# call of a batch at once, each on a kept-alive connection of its own.
ANY_NUMBER_OF_CALLS = sys.maxsize


@dataclass(frozen=True)
class Attachment:
    """A file the email carries (an invoice's or a credit note's PDF), the same bytes on every
    attempt: its snapshot names the document, whose bytes never change once issued."""

    filename: str
    content_type: str
    content: bytes


@dataclass(frozen=True)
class OutboundEmail:
    idempotency_key: str
    to: str
    subject: str
    text: str
    event_id: str  # travels to the provider as a header, so one id finds the email everywhere
    html: str = ""
    # Who it comes from: MAIL_FROM_ADDRESS, or the connected shop's sender (its snapshot's).
    from_address: str = field(default_factory=lambda: settings.MAIL_FROM_ADDRESS)
    attachments: tuple[Attachment, ...] = ()


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
    capabilities: Capabilities

    def send(self, email: OutboundEmail) -> SendResult:
        """Send once. Classifies every failure into an Outcome; never raises for provider errors."""
        ...


class DeliveryWebhook(Protocol):
    """The endpoint where a provider posts its delivery events, and what verifies them. Only
    the configured provider's exists (notifications/tracking/views.py); it answers 503 while
    `verification_problems()` names anything, and production refuses to start then
    (notifications/checks.py)."""

    path: str  # under /webhooks/: "resend/", "anymail/postmark/tracking/"
    esp: str  # the name its events are stored under (ProviderEvent.provider), e.g. "postmark"

    def view(self) -> Callable[[HttpRequest], HttpResponse]:
        """Verifies one request's credentials, then stores its events or refuses it with a 4xx."""
        ...

    def verification_problems(self) -> list[str]:
        """What keeps the view from telling the provider's requests from anyone else's (a
        missing secret or signing key), in words; empty when it can."""
        ...
