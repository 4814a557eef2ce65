"""Which provider an email's call goes to, decided in its claim's transaction.

MAIL_PROVIDER sends. With MAIL_PROVIDER_FALLBACK set, an email goes to the fallback while the
first provider's circuit is open (it failed several times in a row, and no probe of it is due
or free) or an operator paused it, and only if nothing of the email may have reached the first:
no attempt under its key, or only attempts the first definitely refused (an answer such as 429,
503 or a 4xx, or a connection that never opened). An email with an attempt after which the
provider may have it (state.PROVIDER_MAY_HAVE_IT: no answer in time after sending, a dropped
connection, a 5xx, a worker that died during the call; or the provider's own word that it has
the key: accepted earlier, in flight, key conflict) is held by that provider: its resend, a
reviewer's retry too, goes there under the same key, where the provider's deduplication makes
it one email, or it waits for the provider's evidence, its key window or a person, exactly as
without a fallback. The same holds the other way round: an email caught at the fallback stays
with the fallback.

The first provider is always tried first: as soon as its circuit lets a call through (one
probe, then closed), new emails go to it again. A sending-rate limit is not an outage: an email
without a token waits for one, it does not move.
"""

from dataclasses import dataclass
from datetime import datetime

from messaging.errors import WaitError
from notifications.delivery.circuit import circuit_gate, circuit_wait
from notifications.delivery.claim_read import ClaimRead
from notifications.delivery.rate_limit import rate_token_take
from notifications.providers.base import MailProvider
from notifications.providers.catalogue import Providers


@dataclass(frozen=True)
class Route:
    provider: MailProvider
    gate: str  # circuit.GO, or circuit.PROBE: this call tests the provider's open circuit
    # How long after the claim the call may be made: a token lent ahead (rate_limit.py).
    wait_seconds: float = 0.0


def route_choose(
    read: ClaimRead, *, providers: Providers, holder: MailProvider | None, now: datetime
) -> Route | WaitError:
    """The provider this email's call goes to now, or why and how long it waits. `holder`:
    the provider that may have the email already (state.PROVIDER_MAY_HAVE_IT), the only one
    it may go to. Per provider, a paused or open circuit first: its emails wait for it (or
    move on, taking nothing of it), not at the sending rate's pace (taking a token first sent
    all but a few back every second through a whole outage). Then the token, then the probe:
    a probe taken and then refused a token would hold every email until its lease ran out."""
    candidates = [holder] if holder is not None else providers.in_order
    waits: list[WaitError] = []
    for provider in candidates:
        circuit = read.circuit_of(provider.name)
        held = circuit_wait(circuit, now=now)
        if held is not None:
            waits.append(held)
            continue
        slot = rate_token_take(provider=provider.name)
        if isinstance(slot, WaitError):
            return slot
        gate = circuit_gate(circuit, provider=provider.name, now=now)
        if not isinstance(gate, WaitError):
            return Route(provider, gate, wait_seconds=slot.wait_seconds)
        waits.append(gate)  # another call is testing it: the next provider, if there is one
    return _every_provider_waits(waits, candidates)


def _every_provider_waits(waits: list[WaitError], candidates: list[MailProvider]) -> WaitError:
    if len(waits) == 1:
        return waits[0]
    reasons = " ".join(
        f"{provider.name}: {wait.reason}" for provider, wait in zip(candidates, waits, strict=True)
    )
    return WaitError(
        f"Neither mail provider takes emails now. {reasons}",
        retry_after=min(wait.retry_after or 0.0 for wait in waits),
    )
