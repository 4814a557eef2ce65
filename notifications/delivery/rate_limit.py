"""The sending rate toward the provider (MAIL_PROVIDER_RATE_LIMIT calls per second), shared by
every worker on every host: a token bucket in one PostgreSQL row per provider
(ProviderRateBucket), refilled at the limit by the database's own clock (hosts' clocks may
differ), holding one call at most: no burst, so calls may leave at least 1/limit seconds
apart and the provider never sees more than the limit in a second (a window that begins
exactly on a call may hold one more; a call that leaves late, its worker still busy with its
claim, arrives that much closer to the next), not the double a bucket of one second's calls
lets through after a pause.

Each email takes a token in its claim's transaction, after the circuit breaker let it go
(claims.py). The bucket may lend up to one second of tokens ahead (it goes down to -limit):
an email that takes a token not yet refilled holds the next free call time, and its worker
waits until then before calling (RateSlot.wait_seconds, at most a second), so the calls
keep their 1/limit spacing. Without even that it waits: nothing is tried, no attempt is
written, and its message comes back a second later without using its retry budget, so a
backlog after an outage drains at the provider's pace instead of in a storm of 429s.

Why the lending: without it, every email without a token came back a second later, all of
them at about the same moment, and the bucket of one served one of them per moment: under a
backlog the provider got one or two calls a second of a limit of five, and an order's later
emails waited tens of seconds for a token. With no limit set nothing is read or written."""

import math
import time
from dataclasses import dataclass

from django.conf import settings

from infra.prepared import prepared_cursor
from messaging.errors import WaitError
from notifications.models import ProviderRateBucket

CAPACITY = 1.0  # tokens the bucket holds: one call, no burst
# How far ahead the bucket lends: a taken token not yet refilled is a call at most this long
# from now, which its worker waits for (one second of calls at the limit).
LEND_SECONDS = 1.0

_TAKE = f"""
INSERT INTO {ProviderRateBucket._meta.db_table} AS b (provider, tokens, refreshed_at)
VALUES (%(provider)s, %(capacity)s - 1, clock_timestamp())
ON CONFLICT (provider) DO UPDATE SET
       tokens = LEAST(%(capacity)s,
                      b.tokens + %(rate)s * extract(epoch FROM clock_timestamp() - b.refreshed_at)) - 1,
       refreshed_at = clock_timestamp()
 WHERE LEAST(%(capacity)s, b.tokens + %(rate)s * extract(epoch FROM clock_timestamp() - b.refreshed_at)) - 1
       >= -%(lent)s
RETURNING tokens
"""


@dataclass(frozen=True)
class RateSlot:
    """A token taken: the call may be made `wait_seconds` from the claim (0: at once)."""

    wait_seconds: float = 0.0


NOW = RateSlot()


def rate_token_take(*, provider: str) -> RateSlot | WaitError:
    """The call's slot if this email may call the provider (a token was taken, maybe lent),
    else its wait."""
    rate = settings.MAIL_PROVIDER_RATE_LIMIT
    if not rate:
        return NOW
    with prepared_cursor() as cursor:
        cursor.execute(
            _TAKE, {"provider": provider, "rate": rate, "capacity": CAPACITY, "lent": rate * LEND_SECONDS}
        )
        row = cursor.fetchone()
    if row is not None:
        tokens = float(row[0])
        return NOW if tokens >= 0 else RateSlot(wait_seconds=min(LEND_SECONDS, -tokens / rate))
    return WaitError(
        f"Sending at the provider's pace ({rate:g} emails per second, MAIL_PROVIDER_RATE_LIMIT); "
        "this email goes in a moment.",
        retry_after=max(1, math.ceil(1 / rate)),
    )


def rate_slot_wait(not_before: float) -> None:
    """Until the call's slot (a time.monotonic() the claim set, 0: none): a token lent ahead,
    at most LEND_SECONDS away."""
    wait_seconds = not_before - time.monotonic()
    if wait_seconds > 0:
        time.sleep(min(wait_seconds, LEND_SECONDS))
