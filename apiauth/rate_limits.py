"""Requests per API token, counted in PostgreSQL so the limit holds across every web process.

Why the database and not Django's cache: LocMem is per process (gunicorn runs several, so each
would allow the full rate), and we run no Redis or memcached. DatabaseCache is shared but its
incr() is a read then a write, so two processes can both read 599 and both allow request 600.
One INSERT ... ON CONFLICT DO UPDATE ... RETURNING is atomic (the row lock serialises concurrent
requests of one token) and costs one statement per request.
"""

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from django.db import connection

from apiauth.models import ApiToken, ApiTokenRateWindow

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour|d|day)s?\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Rate:
    requests: int
    window_seconds: int

    def __str__(self) -> str:
        return f"{self.requests} requests per {self.window_seconds} s"


@dataclass(frozen=True)
class RateWindowHit:
    request_count: int  # this request included
    retry_after_seconds: int  # until the current window ends


@lru_cache(maxsize=8)
def rate_parse(text: str) -> Rate:
    """Rates read like "600/min", "10/s", "5000/h", or "100/10s" (a window of ten seconds)."""
    match = _RATE.match(text)
    if not match or int(match.group(1)) < 1 or match.group(2) == "0":
        raise ValueError(f"{text!r} is not a rate like '600/min', '10/s' or '100/10s'.")
    requests, multiplier, unit = match.groups()
    return Rate(requests=int(requests), window_seconds=int(multiplier or 1) * _UNIT_SECONDS[unit[0]])


# Fixed windows aligned on the database's clock, so every process and host agrees on where a
# window starts. A request that computed an older window than the row already holds (it lost
# the race for the row lock across a boundary) counts into the newer one: the limit never
# loosens. The price of fixed windows: up to twice the rate across one boundary.
_HIT_SQL = f"""
INSERT INTO {ApiTokenRateWindow._meta.db_table} AS w (token_id, window_start, request_count)
VALUES (%(token)s, to_timestamp(floor(extract(epoch FROM clock_timestamp()) / %(seconds)s) * %(seconds)s), 1)
ON CONFLICT (token_id) DO UPDATE SET
    request_count = CASE WHEN EXCLUDED.window_start > w.window_start THEN 1 ELSE w.request_count + 1 END,
    window_start = GREATEST(w.window_start, EXCLUDED.window_start)
RETURNING w.request_count,
    extract(epoch FROM w.window_start + make_interval(secs => %(seconds)s) - clock_timestamp())
"""


def api_token_rate_window_hit(*, token: ApiToken, rate: Rate) -> RateWindowHit:
    """Count one request of the token in its current window (in autocommit: one statement)."""
    with connection.cursor() as cursor:
        cursor.execute(_HIT_SQL, {"token": token.pk, "seconds": rate.window_seconds})
        request_count, seconds_left = cursor.fetchone()
    return RateWindowHit(request_count=request_count, retry_after_seconds=max(1, math.ceil(seconds_left)))
