"""The sending rate toward the provider (MAIL_PROVIDER_RATE_LIMIT calls per second), shared by
every worker on every host: a token bucket in one PostgreSQL row per provider
(ProviderRateBucket), refilled at the limit by the database's own clock (hosts' clocks may
differ), holding one call at most: no burst, so tokens are handed out at least 1/limit
seconds apart and the provider never sees more than the limit in a second (a window that
begins exactly on a token may hold one more), not the double a bucket of one second's
calls lets through after a pause.

Each email takes a token in its claim's transaction, after the circuit breaker let it go
(claims.py). Without one it waits: nothing is tried, no attempt is written, and its message
comes back a second later without using its retry budget, so a backlog after an outage drains
at the provider's pace instead of in a storm of 429s. With no limit set nothing is read or
written."""

import math

from django.conf import settings

from infra.prepared import prepared_cursor
from messaging.errors import WaitError
from notifications.models import ProviderRateBucket

CAPACITY = 1.0  # tokens the bucket holds: one call, no burst

_TAKE = f"""
INSERT INTO {ProviderRateBucket._meta.db_table} AS b (provider, tokens, refreshed_at)
VALUES (%(provider)s, %(capacity)s - 1, clock_timestamp())
ON CONFLICT (provider) DO UPDATE SET
       tokens = LEAST(%(capacity)s,
                      b.tokens + %(rate)s * extract(epoch FROM clock_timestamp() - b.refreshed_at)) - 1,
       refreshed_at = clock_timestamp()
 WHERE LEAST(%(capacity)s, b.tokens + %(rate)s * extract(epoch FROM clock_timestamp() - b.refreshed_at)) >= 1
RETURNING tokens
"""


def rate_token_take(*, provider: str) -> WaitError | None:
    """None if this email may call the provider now (a token was taken), else its wait."""
    rate = settings.MAIL_PROVIDER_RATE_LIMIT
    if not rate:
        return None
    with prepared_cursor() as cursor:
        cursor.execute(_TAKE, {"provider": provider, "rate": rate, "capacity": CAPACITY})
        if cursor.fetchone() is not None:
            return None
    return WaitError(
        f"Sending at the provider's pace ({rate:g} emails per second, MAIL_PROVIDER_RATE_LIMIT); "
        "this email goes in a moment.",
        retry_after=max(1, math.ceil(1 / rate)),
    )
