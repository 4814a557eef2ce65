"""The provider's circuit breaker, shared by every worker on every host through one row per
provider (ProviderCircuit).

Closed: calls go out. After MAIL_PROVIDER_CIRCUIT_FAILURES transient failures in a row (503,
429, connection refused, timeouts) it opens: no worker calls the provider, and each email
that comes up waits (a WaitError: its message comes back later without using up its retry
budget) until MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS have passed. Then one worker wins the probe
(half open): its one call decides. An answer closes the circuit and everything flows again;
another failure opens it for the next period. An operator's pause (`manage.py provider
pause`) holds every email until `resume`.

The state costs nothing while all is well: the claim's locked read brings the row along
(claim_read.py), and it is written only when a call fails or the state is not closed."""

import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection

from messaging.errors import WaitError
from notifications.models import ProviderCircuit
from notifications.providers.base import Outcome, SendResult

logger = logging.getLogger(__name__)
State = ProviderCircuit.State
PROBE_WAIT_SECONDS = 5  # how soon an email that lost the probe looks again
WAIT_JITTER_SECONDS = 2  # the emails an open circuit holds come back over this long, not all at once
FAILURE_OUTCOMES = (Outcome.TRANSIENT, Outcome.UNKNOWN)
RENDER_ERROR = "render_error"  # a failure of ours, before any call (calls.py)
# Results with no call behind them, which say nothing of the provider's health: ours (calls.py)
# and an attachment a provider module refused before calling (providers/attachments.py).
NOT_CALLED = frozenset(
    {RENDER_ERROR, "attachment_changed", "attachment_deleted", "attachment_too_large", "attachment_invalid"}
)


@dataclass(frozen=True)
class CircuitSeen:
    """The circuit's row as the claim read it (None fields: no row yet, closed)."""

    state: str
    failures: int
    retry_at: datetime | None
    probe_until: datetime | None
    paused_by: str

    @property
    def settled(self) -> bool:
        """Closed with nothing failed: a success has nothing to write."""
        return self.state == State.CLOSED and self.failures == 0


CLOSED = CircuitSeen(State.CLOSED, 0, None, None, "")


GO, PROBE = "go", "probe"


def circuit_gate(seen: CircuitSeen, *, provider: str, now: datetime) -> WaitError | str:
    """GO if this email may call the provider now, PROBE if it may as the one call that tests
    an open circuit, else why and how long it waits. Runs inside the claim's transaction: a
    probe it wins is taken when that transaction commits."""
    if seen.state == State.CLOSED:
        return GO
    held = circuit_wait(seen, now=now)
    if held is not None:
        return held
    if _probe_taken(provider, now):
        return PROBE
    return WaitError(
        "One call is testing whether the mail provider is back; this email waits.",
        retry_after=PROBE_WAIT_SECONDS,
    )


def circuit_wait(seen: CircuitSeen, *, now: datetime) -> WaitError | None:
    """The wait of an email while the circuit is paused, or open with time left: known from the
    row as read, before any token or probe is taken (claims.py), so a held email comes back when
    the circuit may let it go, not at the sending rate's one-second pace."""
    if seen.state == State.PAUSED:
        return WaitError(
            f"The mail provider is paused by {seen.paused_by or 'an operator'}; "
            "this email waits until it is resumed.",
            retry_after=settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS,  # then it looks again
        )
    if seen.state == State.OPEN and seen.retry_at is not None and seen.retry_at > now:
        wait = (seen.retry_at - now).total_seconds() + random.uniform(0, WAIT_JITTER_SECONDS)
        return WaitError(
            f"The mail provider failed {seen.failures} times in a row; no worker calls it until "
            f"{seen.retry_at:%H:%M:%S} UTC, then one call tests it. This email waits.",
            retry_after=max(1.0, wait),
        )
    return None


def probe_failed_wait(reason: str) -> WaitError:
    """A probe that failed is one more wait for its email, not a use of its retry budget: the
    provider is down for every email alike, and the next probe may be anyone's."""
    return WaitError(
        f"{reason} (this email's call tested the provider, which is still down; it waits like the others)",
        retry_after=settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS + random.uniform(0, WAIT_JITTER_SECONDS),
    )


_PROBE = f"""
UPDATE {ProviderCircuit._meta.db_table}
   SET state = 'half_open', probe_until = %(probe_until)s, updated_at = %(now)s
 WHERE provider = %(provider)s
   AND ((state = 'open' AND retry_at <= %(now)s) OR (state = 'half_open' AND probe_until <= %(now)s))
RETURNING provider
"""


def _probe_taken(provider: str, now: datetime) -> bool:
    lease = settings.MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS + settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS + 5
    with connection.cursor() as cursor:
        cursor.execute(
            _PROBE, {"provider": provider, "now": now, "probe_until": now + timedelta(seconds=lease)}
        )
        return cursor.fetchone() is not None


_OPENING = "(c.state = 'half_open' OR c.failures + %(failed)s >= %(threshold)s)"
_FAILED = f"""
INSERT INTO {ProviderCircuit._meta.db_table} AS c
       (provider, state, failures, opened_at, retry_at, probe_until, paused_by, paused_reason, updated_at,
        down_since)
VALUES (%(provider)s, CASE WHEN %(failed)s >= %(threshold)s THEN 'open' ELSE 'closed' END, %(failed)s,
        CASE WHEN %(failed)s >= %(threshold)s THEN %(now)s::timestamptz END,
        CASE WHEN %(failed)s >= %(threshold)s THEN %(retry_at)s::timestamptz END, NULL, '', '', %(now)s,
        CASE WHEN %(failed)s >= %(threshold)s THEN %(now)s::timestamptz END)
ON CONFLICT (provider) DO UPDATE SET
       failures = c.failures + %(failed)s,
       down_since = CASE WHEN c.state = 'closed' AND {_OPENING} THEN %(now)s ELSE c.down_since END,
       state = CASE WHEN c.state IN ('paused', 'open') THEN c.state
                    WHEN {_OPENING} THEN 'open' ELSE 'closed' END,
       opened_at = CASE WHEN c.state IN ('paused', 'open') THEN c.opened_at
                        WHEN {_OPENING} THEN %(now)s ELSE c.opened_at END,
       retry_at = CASE WHEN c.state IN ('paused', 'open') THEN c.retry_at
                       WHEN {_OPENING} THEN %(retry_at)s ELSE c.retry_at END,
       probe_until = NULL,
       updated_at = %(now)s
"""
_ANSWERED = f"""
UPDATE {ProviderCircuit._meta.db_table}
   SET state = 'closed', failures = 0, opened_at = NULL, retry_at = NULL, probe_until = NULL,
       up_since = CASE WHEN state = 'closed' THEN up_since ELSE %(now)s END, down_since = NULL,
       updated_at = %(now)s
 WHERE provider = %(provider)s AND state <> 'paused'
"""


def circuit_record(results: list[SendResult], *, seen: CircuitSeen, provider: str, now: datetime) -> None:
    """After the outcomes of a claim or a batch are recorded: any answer from the provider
    closes the circuit (written only if it was not settled); failures alone count towards
    opening it. Never raises: a circuit that missed one count is better than an outcome lost."""
    try:
        _record(results, seen=seen, provider=provider, now=now)
    except DatabaseError:
        logger.warning("the provider's circuit was not updated after its calls", exc_info=True)


def _record(results: list[SendResult], *, seen: CircuitSeen, provider: str, now: datetime) -> None:
    called = [result for result in results if result.error_code not in NOT_CALLED]
    failed = sum(1 for result in called if result.outcome in FAILURE_OUTCOMES)
    if len(called) > failed:
        if not seen.settled:
            with connection.cursor() as cursor:
                cursor.execute(_ANSWERED, {"provider": provider, "now": now})
        return
    if failed:
        retry_at = now + timedelta(seconds=settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS)
        with connection.cursor() as cursor:
            cursor.execute(
                _FAILED,
                {
                    "provider": provider,
                    "failed": failed,
                    "threshold": settings.MAIL_PROVIDER_CIRCUIT_FAILURES,
                    "now": now,
                    "retry_at": retry_at,
                },
            )
