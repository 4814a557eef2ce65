"""Where and how the simulator posts webhooks: set at start-up (CLI/env), changed at runtime over
``POST /_sim/webhooks``, restored to the start-up values by ``/_sim/reset``.

An update is validated whole before anything changes, so a bad field leaves every setting as it
was. Settings live in memory only, like fault rules.
"""

import base64
import binascii
import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

WIRES = ("resend", "brevo", "postmark")
SVIX_SECRET = re.compile(r"whsec_[A-Za-z0-9+/]+={0,2}")
MAX_DELAY_SECONDS = 3600.0
MAX_ATTEMPTS = 100
MAX_RETRY_BASE_SECONDS = 60.0


# A field's check: the value and its name in, the value to keep out, or WebhookSettingsError.
Check = Callable[[Any, str], Any]


class WebhookSettingsError(ValueError):
    pass


@dataclass(frozen=True)
class WebhookSettings:
    urls: dict[str, str | None] = field(default_factory=lambda: dict.fromkeys(WIRES))
    # A Svix secret (whsec_<base64>): Resend signs its webhooks with Svix.
    resend_secret: str | None = None
    # user:password, for Brevo and Postmark, whose only webhook protection is basic auth.
    basic_auth: str | None = None
    # Time between an email's "sent" and its "delivered" (or bounced) event.
    delivery_delay_seconds: float = 0.5
    # Share of events posted twice with the same event id, as providers do on retries.
    duplicate_rate: float = 0.0
    # Post each message's events in reverse order (delivered before sent).
    reorder: bool = False
    seed: int = 0
    max_attempts: int = 10
    retry_base_seconds: float = 0.5

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def updated(self, payload: Any) -> "WebhookSettings":
        """A copy with the fields of ``payload`` changed; WebhookSettingsError names the first bad one."""
        if not isinstance(payload, dict):
            raise WebhookSettingsError("The body must be a JSON object of settings.")
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(payload) - known)
        if unknown:
            raise WebhookSettingsError(f"Unknown settings: {', '.join(unknown)}.")
        changes = {name: CHECKS[name](value, name) for name, value in payload.items() if name != "urls"}
        if "urls" in payload:
            changes["urls"] = {**self.urls, **_urls(payload["urls"])}
        return dataclasses.replace(self, **changes)


def _urls(value: Any) -> dict[str, str | None]:
    if not isinstance(value, dict):
        raise WebhookSettingsError(f"`urls` must be an object with keys among {', '.join(WIRES)}.")
    unknown = sorted(set(value) - set(WIRES))
    if unknown:
        raise WebhookSettingsError(f"`urls` has unknown wires: {', '.join(unknown)}.")
    return {wire: _url(url, f"urls.{wire}") for wire, url in value.items()}


def _url(value: Any, name: str) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookSettingsError(f"`{name}` must be an http(s) URL or null.")
    if parts.username is not None:
        # The credentials belong in basic_auth, which is sent as a header.
        raise WebhookSettingsError(f"`{name}` must not carry credentials; set basic_auth instead.")
    return value


def _secret(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not SVIX_SECRET.fullmatch(value):
        raise WebhookSettingsError(f"`{name}` must be a Svix secret, whsec_<base64>, or null.")
    try:
        key = base64.b64decode(value.removeprefix("whsec_") + "==")
    except binascii.Error:
        key = b""
    if not key:
        raise WebhookSettingsError(f"`{name}` must decode to a non-empty key.")
    return value


def _basic_auth(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or ":" not in value or not value.partition(":")[0]:
        raise WebhookSettingsError(f"`{name}` must be user:password or null.")
    return value


def _number(low: float, high: float, *, above_low: bool = False) -> Check:
    def check(value: Any, name: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise WebhookSettingsError(f"`{name}` must be a number.")
        if not low <= value <= high or (above_low and value == low):
            bound = "above" if above_low else "from"
            raise WebhookSettingsError(f"`{name}` must be {bound} {low:g} up to {high:g}.")
        return float(value)

    return check


def _integer(low: int, high: int) -> Check:
    def check(value: Any, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise WebhookSettingsError(f"`{name}` must be an integer.")
        if not low <= value <= high:
            raise WebhookSettingsError(f"`{name}` must be from {low} up to {high}.")
        return value

    return check


def _boolean(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise WebhookSettingsError(f"`{name}` must be true or false.")
    return value


CHECKS: dict[str, Check] = {
    "resend_secret": _secret,
    "basic_auth": _basic_auth,
    "delivery_delay_seconds": _number(0.0, MAX_DELAY_SECONDS),
    "duplicate_rate": _number(0.0, 1.0),
    "reorder": _boolean,
    "seed": _integer(-(2**63), 2**63 - 1),
    "max_attempts": _integer(1, MAX_ATTEMPTS),
    "retry_base_seconds": _number(0.0, MAX_RETRY_BASE_SECONDS, above_low=True),
}
