"""The two-host drill's own verdict: what happened to the emails host a was sending when its
link was cut, and what host a did once it came back. From the attempt rows (which worker
started each provider call, and when), the proxy's log of host a's provider calls, and the
simulator's accepted messages: pure functions of those records, tested in
tests/unit/test_two_hosts.py.

- An email is "caught by the cut" when host a had started a provider call for it before the
  link came back and had not recorded that call's outcome before the link went down.
- Host b "takes it over" with its next attempt on that email. It must not start before host
  a's lease ran out (the call's start plus the lease): a takeover under a live lease is a
  failure, whatever the simulator says.
- After the link is back, a provider call from host a for a key the provider had already
  accepted is a repeat; the key makes it no second email, and the report counts both.
"""

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Attempt:
    notification_id: int
    number: int
    host: str  # "a" or "b": the host of the worker that started it
    started_at: float  # epoch seconds
    finished_at: float | None


@dataclass
class TakeoverVerdict:
    caught_by_the_cut: int = 0  # emails whose call host a had open when the link went
    taken_over_by_b: int = 0
    finished_by_a_after_return: int = 0  # caught, and not taken over: host a finished them
    taken_over_under_a_live_lease: int = 0  # must be 0
    first_takeover_after_lease_expiry_seconds: float | None = None
    last_takeover_after_lease_expiry_seconds: float | None = None
    takeover_seconds_after_cut: list[float] = field(default_factory=list)  # b's attempt - cut start
    a_provider_calls_during_cut: int = 0  # must be 0: the cut was real
    a_provider_calls_after_return: int = 0
    a_repeats_after_return: int = 0  # of those, for keys the provider had accepted already
    keys_accepted_twice: int = 0  # must be 0: one message per key
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not (
            self.taken_over_under_a_live_lease or self.a_provider_calls_during_cut or self.keys_accepted_twice
        )


def takeover_judge(
    attempts: list[Attempt],
    *,
    cut_start: float,
    cut_end: float,
    lease_seconds: float,
    a_calls: list[tuple[float, str]],  # (time, idempotency key) of host a's provider calls
    accepted: list[tuple[float, str]],  # (time, idempotency key) of every accepted message
) -> TakeoverVerdict:
    verdict = TakeoverVerdict()
    by_notification: dict[int, list[Attempt]] = {}
    for attempt in sorted(attempts, key=lambda a: (a.notification_id, a.number)):
        by_notification.setdefault(attempt.notification_id, []).append(attempt)
    delays = []
    for notification_id, rows in by_notification.items():
        for position, attempt in enumerate(rows):
            if not _caught_by_the_cut(attempt, cut_start, cut_end):
                continue
            verdict.caught_by_the_cut += 1
            successor = next((later for later in rows[position + 1 :] if later.host == "b"), None)
            if successor is None:
                verdict.finished_by_a_after_return += 1
                continue
            verdict.taken_over_by_b += 1
            verdict.takeover_seconds_after_cut.append(round(successor.started_at - cut_start, 1))
            after_expiry = successor.started_at - (attempt.started_at + lease_seconds)
            delays.append(after_expiry)
            if after_expiry < 0:
                verdict.taken_over_under_a_live_lease += 1
                verdict.problems.append(
                    f"notification {notification_id}: host b started attempt {successor.number} "
                    f"{-after_expiry:.1f} s before host a's lease ran out"
                )
    if delays:
        verdict.first_takeover_after_lease_expiry_seconds = round(min(delays), 1)
        verdict.last_takeover_after_lease_expiry_seconds = round(max(delays), 1)
    verdict.takeover_seconds_after_cut.sort()
    _judge_calls(verdict, cut_start=cut_start, cut_end=cut_end, a_calls=a_calls, accepted=accepted)
    return verdict


def _caught_by_the_cut(attempt: Attempt, cut_start: float, cut_end: float) -> bool:
    return (
        attempt.host == "a"
        and attempt.started_at < cut_end
        and (attempt.finished_at is None or attempt.finished_at > cut_start)
    )


def _judge_calls(
    verdict: TakeoverVerdict,
    *,
    cut_start: float,
    cut_end: float,
    a_calls: list[tuple[float, str]],
    accepted: list[tuple[float, str]],
) -> None:
    first_accepted: dict[str, float] = {}
    for at, key in sorted(accepted):
        first_accepted.setdefault(key, at)
    twice = [key for key, n in Counter(key for _, key in accepted).items() if n > 1]
    verdict.keys_accepted_twice = len(twice)
    verdict.problems += [f"key {key}: accepted more than once" for key in twice[:20]]
    during = [call for call in a_calls if cut_start < call[0] < cut_end]
    verdict.a_provider_calls_during_cut = len(during)
    if during:
        verdict.problems.append(f"host a reached the provider {len(during)} times during the cut")
    after = [(at, key) for at, key in a_calls if at >= cut_end]
    verdict.a_provider_calls_after_return = len(after)
    verdict.a_repeats_after_return = sum(
        1 for at, key in after if key in first_accepted and first_accepted[key] < at
    )
