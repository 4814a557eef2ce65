"""The provider's half of the outage drill's verdict, from the simulator's request log (when
each send request arrived): pure functions of arrival times, so they are tested on made-up
logs too (tests/unit/test_outage_verdict.py).

During the outage the circuit breaker (notifications/delivery/circuit.py) bounds the calls:
the failures that open it, the calls already claimed when it opens, and one probe per open
period. After it, the shared token bucket (notifications/delivery/rate_limit.py) bounds them:
it holds one token (no burst) and refills at `rate` a second, so in any closed window of w
seconds at most 1 + rate * w calls get a token. The simulator logs when a call arrives, a
little after its token was taken (the claim commits, then the call goes out); calls whose
tokens were up to TRAVEL_SECONDS further apart than that can arrive within one window, so the
bound on arrivals counts tokens over w + TRAVEL_SECONDS.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

# How much more the time from a token to its call's arrival may vary between two calls: the
# claim's commit and the request's way to the simulator, on a busy machine. (With a bucket of
# one second's calls, a batch's claim took several tokens at once and its calls left together:
# 13 arrivals within a second at 5/s. The bucket now holds one call, so a claim gets one token.)
TRAVEL_SECONDS = 0.2


@dataclass(frozen=True)
class CircuitSizes:
    """What bounds the calls of an outage: the circuit's settings and how many calls the
    workers can have in flight at once."""

    failures: int  # MAIL_PROVIDER_CIRCUIT_FAILURES: transient failures in a row that open it
    open_seconds: float  # MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS: how long it stays open
    workers: int  # worker processes (bin/worker)
    concurrency: int  # WORKER_CONCURRENCY: pool processes per worker
    batch_size: int  # DELIVERY_BATCH_SIZE: emails one pool process calls for at once


def outage_request_bound(outage_seconds: float, sizes: CircuitSizes) -> int:
    """The most send requests the provider may see during an outage of this length:

    - failures - 1 calls whose failures were counted before the one that opens the circuit;
    - every call already claimed when it opens (claimed against a closed circuit): at most one
      batch per pool process, workers * concurrency * batch_size (the opening batch included);
    - one probe per open period: a failed probe opens the circuit for open_seconds more, so
      probes are at least that far apart: floor(outage / open_seconds) + 1.
    """
    in_flight = sizes.workers * sizes.concurrency * sizes.batch_size
    probes = math.floor(outage_seconds / sizes.open_seconds) + 1
    return (sizes.failures - 1) + in_flight + probes


def rate_window_bound(rate: float, window_seconds: float, travel_seconds: float = TRAVEL_SECONDS) -> int:
    """The most calls that may arrive in any window of this length: the bucket's one token
    plus what refills during the window and the calls' travel."""
    return math.floor(1.0 + rate * (window_seconds + travel_seconds) + 1e-9)


def max_in_window(arrivals: Sequence[float], window_seconds: float) -> tuple[int, float | None]:
    """The most arrivals in any closed window [t, t + window_seconds] (a sliding window: it
    starts at some arrival), and where the fullest one starts; (0, None) for no arrivals."""
    times = sorted(arrivals)
    best, best_start, first = 0, None, 0
    for last, arrived in enumerate(times):
        while arrived - times[first] > window_seconds:
            first += 1
        if last - first + 1 > best:
            best, best_start = last - first + 1, times[first]
    return best, best_start


@dataclass
class ProviderVerdict:
    outage_seconds: float
    requests_before: int
    requests_during_outage: int
    requests_during_outage_bound: int
    requests_after: int
    rate_limit: float  # MAIL_PROVIDER_RATE_LIMIT, calls per second
    max_in_1s_after: int  # the most send requests in any 1-second window after the outage
    max_in_1s_bound: int
    max_in_10s_after: int  # the same over 10 seconds: the sustained rate
    max_in_10s_bound: int
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def provider_verdict(
    arrivals: Sequence[float], *, outage: tuple[float, float], rate: float, sizes: CircuitSizes
) -> ProviderVerdict:
    """Judge the simulator's arrival times (seconds since the epoch) against an outage from
    outage[0] to outage[1]: few calls during it, never faster than the limit after it."""
    start, end = outage
    during = [at for at in arrivals if start <= at <= end]
    after = [at for at in arrivals if at > end]
    verdict = ProviderVerdict(
        outage_seconds=round(end - start, 1),
        requests_before=sum(1 for at in arrivals if at < start),
        requests_during_outage=len(during),
        requests_during_outage_bound=outage_request_bound(end - start, sizes),
        requests_after=len(after),
        rate_limit=rate,
        max_in_1s_after=max_in_window(after, 1.0)[0],
        max_in_1s_bound=rate_window_bound(rate, 1.0),
        max_in_10s_after=max_in_window(after, 10.0)[0],
        max_in_10s_bound=rate_window_bound(rate, 10.0),
    )
    if verdict.requests_during_outage > verdict.requests_during_outage_bound:
        verdict.problems.append(
            f"the provider saw {verdict.requests_during_outage} requests during the outage, "
            f"more than the circuit allows ({verdict.requests_during_outage_bound})"
        )
    for window, seen, bound in (
        (1, verdict.max_in_1s_after, verdict.max_in_1s_bound),
        (10, verdict.max_in_10s_after, verdict.max_in_10s_bound),
    ):
        if seen > bound:
            verdict.problems.append(
                f"after the outage the provider saw {seen} requests within {window} s, "
                f"more than the limit of {rate:g}/s allows ({bound})"
            )
    return verdict
