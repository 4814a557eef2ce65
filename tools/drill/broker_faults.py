"""The drill's broker faults, all hard kills (SIGKILL of the node's process group):

- one node: the node is killed and started again on its data directory (durable queues and
  their messages come back from disk; every client reconnects);
- a cluster: the node that leads `orders.confirmations` is killed, and later one of its
  followers; each is started again once the failover has been measured.

Two failover times are measured from the kill (time.monotonic, and the wall clock for the
database): until a surviving node reports a new leader of the queue (`rabbitmqctl list_queues
name leader`; a follower's death changes no leader), and until the first `order.created` event
(routed to `orders.confirmations`) created after the kill is marked published, i.e. confirmed
by the broker: publishing into the queue works again, end to end, through our relays.
"""

import contextlib
import random
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

import psycopg

from notifications.events import EMAIL_KIND_OF_EVENT
from orders.events import ORDER_CREATED
from tools.drill.broker_cluster import PrivateCluster
from tools.drill.broker_node import PrivateRabbit
from tools.drill.sql import one_row
from tools.drill.stack import DrillStack

MEASURED_QUEUE = "orders.confirmations"
FAILOVER_TIMEOUT_SECONDS = 90.0
# Commit → queue and commit → sent are also read over every order of this many seconds after a
# kill (and before it, the same drill's faults without the node loss), once the drill has settled.
WINDOW_SECONDS = 10.0


@dataclass
class NodeKill:
    node: str
    role: str  # "leader" or "follower" of MEASURED_QUEUE
    killed_at: str  # the wall clock, ISO 8601
    new_leader: str | None  # after a leader's death; a follower's leaves the leader as it was
    seconds_to_new_leader: float | None
    # None: none within FAILOVER_TIMEOUT_SECONDS, or not measured (the stream had ended)
    seconds_to_confirmed_publish: float | None
    orders_flowing: bool
    # From the kill: until the drill started the node again (once measured), and until it was back.
    seconds_to_start: float
    seconds_to_restart: float


def restart_single_node(stack: DrillStack) -> float:
    """SIGKILL the one node, start it again; the seconds it was gone."""
    node = stack.rabbit
    assert isinstance(node, PrivateRabbit)
    killed = time.monotonic()
    node.restart_hard()
    return time.monotonic() - killed


def kill_queue_node(stack: DrillStack, role: str, rng: random.Random, *, orders_flowing: bool) -> dict:
    """SIGKILL the leader (or a follower) of MEASURED_QUEUE, measure, start it again. Once
    the stream has ended no order is created, and the publish is not waited for."""
    cluster = stack.rabbit
    assert isinstance(cluster, PrivateCluster)
    leader = cluster.queue_leader(MEASURED_QUEUE)
    if role == "leader":
        victim = leader
    else:
        victim = rng.choice([member for member in cluster.queue_members(MEASURED_QUEUE) if member != leader])
    assert victim is not None, f"{MEASURED_QUEUE} has no leader"
    killed_at, killed_wall = time.monotonic(), datetime.now(UTC)
    cluster.node(victim).kill()
    new_leader, to_leader = None, None
    try:  # whatever the measurement does, the node is started again
        if role == "leader":
            with contextlib.suppress(TimeoutError):  # None: reported as a problem (failover_problems)
                new_leader = cluster.new_leader_after_kill(
                    MEASURED_QUEUE, victim, timeout=FAILOVER_TIMEOUT_SECONDS
                )
                to_leader = time.monotonic() - killed_at
        to_publish = (
            _first_confirmed_publish_after(stack.database_dsn, killed_wall) if orders_flowing else None
        )
    finally:
        to_start = time.monotonic() - killed_at
        cluster.node(victim).start()
    return asdict(
        NodeKill(
            node=victim,
            role=role,
            killed_at=killed_wall.isoformat(),
            new_leader=new_leader,
            seconds_to_new_leader=None if to_leader is None else round(to_leader, 2),
            seconds_to_confirmed_publish=None if to_publish is None else round(to_publish, 2),
            orders_flowing=orders_flowing,
            seconds_to_start=round(to_start, 1),
            seconds_to_restart=round(time.monotonic() - killed_at, 1),
        )
    )


def _first_confirmed_publish_after(dsn: str, since: datetime) -> float | None:
    """Seconds from `since` to the first publish of an order.created event created after it
    (so its confirm came after it too: the relay marks an event only once it is confirmed)."""
    deadline = time.monotonic() + FAILOVER_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        with psycopg.connect(dsn) as connection:
            first = one_row(
                connection.execute(
                    "SELECT min(published_at) FROM messaging_outboxevent"
                    " WHERE event_type = %s AND created_at > %s AND published_at IS NOT NULL",
                    [ORDER_CREATED, since],
                )
            )[0]
        if first is not None:
            return (first - since).total_seconds()
        time.sleep(0.2)
    return None


def commit_delays_around_kills(dsn: str, kills: list[dict]) -> None:
    """Adds to each kill (once the drill has settled and every event is published) two times of
    every order.created event created in the WINDOW_SECONDS after it, and of those in the
    WINDOW_SECONDS before it: commit → the broker's confirm (the publishers' failover), and
    commit → its email sent (the workers' too: a consumer that lost its node must take
    messages again from another). The orders a node's loss may delay, beside the same drill's
    other faults without it."""
    window = timedelta(seconds=WINDOW_SECONDS)
    for kill in kills:
        killed = datetime.fromisoformat(kill["killed_at"])
        for key, measure in (("commit_to_queue", _commit_to_queue), ("commit_to_sent", _commit_to_sent)):
            kill[f"{key}_before"] = measure(dsn, killed - window, killed)
            kill[f"{key}_after"] = measure(dsn, killed, killed + window)


def _commit_to_queue(dsn: str, start: datetime, end: datetime) -> dict | None:
    """Count, p50, p99 and max in seconds of published_at - created_at; None: no such event."""
    return _delays(
        dsn, start, end, done="e.published_at", source="messaging_outboxevent e", left="unpublished"
    )


def _commit_to_sent(dsn: str, start: datetime, end: datetime) -> dict | None:
    """The same of the order's confirmation email: its sent_at - the event's created_at. A
    confirmation skipped on purpose (its order cancelled before it went) is not counted."""
    source = (
        "messaging_outboxevent e JOIN notifications_notification n"
        f" ON n.order_id = e.aggregate_id::uuid AND n.kind = '{EMAIL_KIND_OF_EVENT[ORDER_CREATED]}'"
        " AND n.status <> 'skipped'"
    )
    return _delays(dsn, start, end, done="n.sent_at", source=source, left="unsent")


def _delays(dsn: str, start: datetime, end: datetime, *, done: str, source: str, left: str) -> dict | None:
    """Of the order.created events created in [start, end): how many reached `done`, the p50,
    p99 and max in seconds of `done` - created_at, and how many did not (`left`)."""
    delay = f"extract(epoch FROM {done} - e.created_at)"
    with psycopg.connect(dsn) as connection:
        count, p50, p99, most, not_done = one_row(
            connection.execute(
                f"SELECT count({done}), percentile_cont(0.5) WITHIN GROUP (ORDER BY {delay}),"
                f" percentile_cont(0.99) WITHIN GROUP (ORDER BY {delay}), max({delay}),"
                f" count(*) - count({done})"
                f" FROM {source}"
                " WHERE e.event_type = %s AND e.created_at >= %s AND e.created_at < %s",
                [ORDER_CREATED, start, end],
            )
        )
    if not count:
        return None
    seconds = {"p50": p50, "p99": p99, "max": most}
    return {"events": count, left: not_done} | {k: round(v, 2) for k, v in seconds.items()}


def orders_committed_after_kills(dsn: str, kills: list[dict]) -> None:
    """Adds to each kill how many order.created events were created after it, until the drill
    settled: a kill with none after it fell when the stream had ended, and no publish into
    MEASURED_QUEUE could follow it, however the cluster failed over."""
    with psycopg.connect(dsn) as connection:
        for kill in kills:
            kill["orders_committed_after"] = one_row(
                connection.execute(
                    "SELECT count(*) FROM messaging_outboxevent WHERE event_type = %s AND created_at > %s",
                    [ORDER_CREATED, datetime.fromisoformat(kill["killed_at"])],
                )
            )[0]


def nothing_to_judge(kill: dict) -> bool:
    """No order was committed after the kill (orders_committed_after_kills), so the lack of a
    confirmed publish after it says nothing about the failover. A kill not counted (a report
    from before the count) is judged."""
    return kill.get("orders_committed_after") == 0


NOTHING_TO_JUDGE = "no order was committed after this kill: the stream had ended; nothing to judge"


def failover_problems(kills: list[dict]) -> list[str]:
    """A leader's death with no new leader, or no confirmed publish while orders flowed, within
    FAILOVER_TIMEOUT_SECONDS: the cluster did not fail over, and the drill fails. A kill after
    which no order was committed is not judged on its publish (the report says so): the
    schedule's shares of a short stream can fall after its last order, as a kill waits for the
    chaos thread and the kill before it."""
    problems = []
    for kill in kills:
        if kill["role"] == "leader" and kill["new_leader"] is None:
            problems.append(f"no new leader of {MEASURED_QUEUE} after {kill['node']} was killed")
        if (
            kill["orders_flowing"]
            and kill["seconds_to_confirmed_publish"] is None
            and not nothing_to_judge(kill)
        ):
            committed = kill.get("orders_committed_after")
            problems.append(
                f"no confirmed publish into {MEASURED_QUEUE} after {kill['node']} was killed"
                + ("" if committed is None else f", though {committed} orders were committed after it")
            )
    return problems
