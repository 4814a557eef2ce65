"""The outage drill's second provider (`--fallback brevo`) and its clock: how long the emails of
orders placed during the outage took from their commit to the provider's acceptance (with or
without a fallback, so the two runs compare), and with a fallback, how soon it took over and
that no email whose outcome at the first provider was unknown went to it. Read with plain SQL
and the simulators' records, never from the code under test."""

from dataclasses import dataclass, field
from statistics import quantiles

import psycopg
import requests

UNKNOWN_OUTCOMES = ("unknown", "in_flight")
# The fallback's first accepted email must come this soon after the outage began: the circuit
# opens after a few failures, and then an email is claimed for the fallback at once.
TAKEOVER_BOUND_SECONDS = 30.0


def outage_latency(
    database_dsn: str, *, outage: tuple[float, float], first: str | None = None
) -> dict[str, object]:
    """Commit → accepted (the email's row is written in its order's transaction; sent_at is the
    provider's acceptance), in seconds, of the emails of orders placed during the outage.

    With `first` (a run with a fallback), also the same for the emails free to move: not of an
    order with an email whose outcome at the first provider was unknown. Such an email stays
    with the first until it answers, and the later emails of its order wait for it (they follow
    it), so they are held for the outage whatever the fallback does; the count of them is
    given beside."""
    with psycopg.connect(database_dsn) as connection:
        rows = connection.execute(
            LATENCY_OF_EMAILS,
            {"start": outage[0], "end": outage[1], "first": first, "unknown": list(UNKNOWN_OUTCOMES)},
        ).fetchall()
    clock = _quantiles([float(seconds) for seconds, _ in rows])
    if first is not None:
        clock["free_to_move"] = _quantiles([float(seconds) for seconds, behind in rows if not behind])
        clock["behind_unknown"] = sum(1 for _, behind in rows if behind)
    return clock


def _quantiles(seconds: list[float]) -> dict[str, object]:
    seconds = sorted(seconds)
    if len(seconds) < 2:
        return {"emails": len(seconds), "p50": None, "p99": None, "max": seconds[-1] if seconds else None}
    cuts = quantiles(seconds, n=100, method="inclusive")
    return {
        "emails": len(seconds),
        "p50": round(cuts[49], 2),
        "p99": round(cuts[98], 2),
        "max": round(seconds[-1], 1),
    }


# Each sent email created in the window, and whether an email of its order had an attempt at
# the first provider whose outcome was unknown (false when no first provider is named).
LATENCY_OF_EMAILS = """
SELECT extract(epoch FROM n.sent_at - n.created_at),
       EXISTS (SELECT 1 FROM notifications_notification m
                 JOIN notifications_deliveryattempt a ON a.notification_id = m.id
                WHERE m.order_id = n.order_id AND a.provider = %(first)s AND a.outcome = ANY(%(unknown)s))
  FROM notifications_notification n
 WHERE n.created_at BETWEEN to_timestamp(%(start)s) AND to_timestamp(%(end)s)
   AND n.sent_at IS NOT NULL
"""


SENT_BY_PROVIDER = (
    "SELECT provider, count(*) FROM notifications_notification WHERE status = 'sent' GROUP BY provider"
)
# Each email with an attempt at the first provider whose outcome was unknown, and whether any
# attempt of it went to the fallback.
CAUGHT_UNKNOWN = """
SELECT n.idempotency_key,
       EXISTS (SELECT 1 FROM notifications_deliveryattempt b
                WHERE b.notification_id = n.id AND b.provider = %(fallback)s)
  FROM notifications_notification n
 WHERE EXISTS (SELECT 1 FROM notifications_deliveryattempt a
                WHERE a.notification_id = n.id AND a.provider = %(first)s AND a.outcome = ANY(%(unknown)s))
"""
TAKEOVER = """
SELECT extract(epoch FROM min(finished_at)) - %(start)s
  FROM notifications_deliveryattempt
 WHERE provider = %(fallback)s AND outcome = 'accepted' AND finished_at >= to_timestamp(%(start)s)
"""


@dataclass
class FallbackFacts:
    first: str  # the providers' names
    fallback: str
    sent_through_first: int  # emails sent, by the provider that took them (our records)
    sent_through_fallback: int
    fallback_accepted: int  # what the fallback's simulator accepted
    takeover_seconds: float | None  # the outage's start → the fallback's first acceptance
    caught_unknown: int  # emails with an attempt at the first whose outcome was unknown
    caught_moved: int  # of those, any attempted at or accepted by the fallback: must be 0
    problems: list[str] = field(default_factory=list)


def fallback_facts(
    database_dsn: str, fallback_sim_url: str, *, first: str, fallback: str, outage_start: float
) -> FallbackFacts:
    messages = requests.get(f"{fallback_sim_url}/_sim/messages", timeout=60).json()["messages"]
    fallback_keys = {message["idempotency_key"] for message in messages}
    names = {"first": first, "fallback": fallback, "unknown": list(UNKNOWN_OUTCOMES)}
    with psycopg.connect(database_dsn) as connection:
        sent: dict[str, int] = dict(connection.execute(SENT_BY_PROVIDER).fetchall())
        caught = connection.execute(CAUGHT_UNKNOWN, names).fetchall()
        takeover = connection.execute(TAKEOVER, names | {"start": outage_start}).fetchone()
    facts = FallbackFacts(
        first=first,
        fallback=fallback,
        sent_through_first=sent.get(first, 0),
        sent_through_fallback=sent.get(fallback, 0),
        fallback_accepted=len(messages),
        takeover_seconds=None if takeover is None or takeover[0] is None else round(float(takeover[0]), 1),
        caught_unknown=len(caught),
        caught_moved=sum(1 for key, attempted in caught if attempted or key in fallback_keys),
    )
    facts.problems = fallback_problems(facts)
    return facts


def fallback_problems(facts: FallbackFacts) -> list[str]:
    problems = []
    if facts.caught_moved:
        problems.append(
            f"{facts.caught_moved} email(s) whose outcome at {facts.first} was unknown "
            f"went to {facts.fallback}"
        )
    if not facts.caught_unknown:
        problems.append(
            f"no email was caught with an unknown outcome at {facts.first}: the drill showed nothing of them"
        )
    if not facts.sent_through_fallback:
        problems.append(f"{facts.fallback} sent nothing during the outage")
    elif facts.takeover_seconds is None or facts.takeover_seconds > TAKEOVER_BOUND_SECONDS:
        problems.append(
            f"{facts.fallback} took its first email {facts.takeover_seconds} s after the outage began "
            f"(more than {TAKEOVER_BOUND_SECONDS:g} s)"
        )
    return problems
