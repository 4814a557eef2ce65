"""What a provider module (resend.py, brevo.py, postmark.py) hands the dispatcher: the events of one
accepted message, each with its payload already built and the step at which it happens."""

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

# What happens to a recipient after the send: None (delivered), "bounce", "complaint" or "delay",
# as chosen by the fault rule that matched the send (its to_contains picks the recipients).
OutcomeFor = Callable[[str], str | None]
# The simulator-clock time of a step: 0 at acceptance, 1 after delivery_delay_seconds, 2 after two.
EventTime = Callable[[int], float]


@dataclass(frozen=True)
class WebhookEvent:
    event_id: str
    # Listed in /_sim/webhooks: Resend's and Brevo's event names, Postmark's RecordType (or the
    # bounce Type for Bounce records: HardBounce, Transient).
    event_type: str
    step: int
    body: bytes


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def internal_event_id() -> str:
    """An id for listing and de-duplicating events of providers whose payloads carry none."""
    return f"evt_{secrets.token_hex(12)}"


def utc(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)
