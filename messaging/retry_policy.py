"""When to try again, and for how long: delay(n) = min(the type's longest pause, 5 s * 2^(n-1))
plus jitter, until the type's retry budget (time since the first failure) is spent
(docs/failure-handling.md).

Whole seconds and at least 1: with quorum queues Celery delays retries through its native
delayed-delivery queues, where a countdown between 0 and 1 s raises
(docs/celery-and-rabbitmq.md, "Quorum queues"). The
base, the cap and the number of retries are settings (DELIVERY_RETRY_*).
"""

import math
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from messaging.registry import EventType

IN_FLIGHT_DELAY_SECONDS = 2
# Up to this share of the delay is added at random, so that a burst of retries after an
# outage spreads out; and no delay is shorter than a second (see above).
JITTER_SHARE = 0.2
MIN_DELAY_SECONDS = 1


# The message header that carries when the first failure of this delivery happened: Celery
# copies a request's custom headers into its retry message, so every retry knows it.
RETRY_SINCE_HEADER = "x-retry-since"
WAITING_SINCE_HEADER = "x-waiting-since"
_OURS = (RETRY_SINCE_HEADER, WAITING_SINCE_HEADER)


def max_retries() -> int:
    """A safety cap on the count of retries; the time budget ends them first."""
    return settings.DELIVERY_MAX_RETRIES


def retry_budget(event_type: EventType | None) -> timedelta:
    if settings.DELIVERY_RETRY_BUDGET_SECONDS or event_type is None:
        return timedelta(seconds=settings.DELIVERY_RETRY_BUDGET_SECONDS or 3600)
    return event_type.retry_budget


def retry_max_delay_seconds(event_type: EventType | None) -> float:
    if settings.DELIVERY_RETRY_MAX_DELAY_SECONDS or event_type is None:
        return settings.DELIVERY_RETRY_MAX_DELAY_SECONDS or 300
    return event_type.retry_max_delay.total_seconds()


def retry_since_header(headers: dict | None, now: datetime, *, waiting: bool = False) -> dict[str, str]:
    """The custom headers of a retry message: when the first failure happened (kept from the
    message being retried, or now for a first failure). A wait that is no failure (WaitError:
    the provider takes no calls) also stamps when it began: the next delivery moves the first
    failure's time forward by the time actually waited, so waiting uses none of the budget."""
    since = retry_since_of(headers, now)
    kept = {key: value for key, value in (headers or {}).items() if key not in _OURS}
    if since is None and waiting:
        return kept  # nothing has failed yet: no budget is running
    stamped = {**kept, RETRY_SINCE_HEADER: (since or now).isoformat()}
    if waiting:
        stamped[WAITING_SINCE_HEADER] = now.isoformat()
    return stamped


def retry_since_of(headers: dict | None, now: datetime | None = None) -> datetime | None:
    """The first failure's time, moved forward by a wait that just ended."""
    since = _time_of(headers, RETRY_SINCE_HEADER)
    waited_from = _time_of(headers, WAITING_SINCE_HEADER)
    if since is None or waited_from is None:
        return since
    return since + max(timedelta(0), (now or timezone.now()) - waited_from)


def _time_of(headers: dict | None, name: str) -> datetime | None:
    """A header's time; None for one we did not write (ours always carry their offset: a time
    without one cannot be compared with now), and the count cap still ends the retries."""
    value = (headers or {}).get(name)
    try:
        found = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return found if found is not None and found.utcoffset() is not None else None


def budget_spent(*, retry_since: datetime | None, budget: timedelta, now: datetime | None = None) -> bool:
    return retry_since is not None and (now or timezone.now()) - retry_since >= budget


def retry_delay_seconds(
    *, retry_number: int, retry_after: float | None = None, max_delay_seconds: float | None = None
) -> int:
    """Delay before retry `retry_number` (1 for the first retry)."""
    cap = max_delay_seconds if max_delay_seconds is not None else retry_max_delay_seconds(None)
    base = min(cap, settings.DELIVERY_RETRY_BASE_DELAY_SECONDS * 2 ** (max(retry_number, 1) - 1))
    if retry_after is not None:
        base = max(base, retry_after)  # the provider said when; never earlier than that
    jitter = random.uniform(0, base * JITTER_SHARE)
    return max(MIN_DELAY_SECONDS, math.ceil(base + jitter))
