"""When to try again: delay(n) = min(60 s, 5 s * 2^(n-1)) plus jitter
(docs/failure-handling.md).

Whole seconds and at least 1: with quorum queues Celery delays retries through its native
delayed-delivery queues, where a countdown between 0 and 1 s raises
(docs/celery-and-rabbitmq.md, "Quorum queues"). The
base, the cap and the number of retries are settings (DELIVERY_RETRY_*).
"""

import math
import random

from django.conf import settings

IN_FLIGHT_DELAY_SECONDS = 2


def max_retries() -> int:
    """Retries before a transient failure becomes final (`failed`, dead letter)."""
    return settings.DELIVERY_MAX_RETRIES


def retry_delay_seconds(*, retry_number: int, retry_after: float | None = None) -> int:
    """Delay before retry `retry_number` (1 for the first retry)."""
    base = min(
        settings.DELIVERY_RETRY_MAX_DELAY_SECONDS,
        settings.DELIVERY_RETRY_BASE_DELAY_SECONDS * 2 ** (max(retry_number, 1) - 1),
    )
    if retry_after is not None:
        base = max(base, retry_after)  # the provider said when; never earlier than that
    jitter = random.uniform(0, base * 0.2)  # spreads a burst of retries after an outage
    return max(1, math.ceil(base + jitter))
