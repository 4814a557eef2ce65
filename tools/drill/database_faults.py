"""The database drill's faults (`--database patroni`), on the drill's PostgreSQL cluster
(tools/drill/pg_cluster.py), each while orders are being placed:

- "crash": the primary's PostgreSQL is SIGKILLed, the postmaster and every backend (Patroni
  lives on, sees it within a loop and, with primary_start_timeout 0, gives up the leader key at
  once); a standby is promoted. The drill crashes the first primary, and later the one that
  replaced it;
- "freeze": the primary's whole node, Patroni and PostgreSQL, is stopped (SIGSTOP) and nothing
  of it answers; its leader key runs out after Patroni's ttl and a standby is promoted. Some
  seconds after that the node is thawed (SIGCONT); writes aimed at it alone meanwhile and after
  tell whether it confirmed any as a second primary (tools/drill/database_fence.py).

Measured from the kill with Patroni's REST API (`/cluster`, polled): until another node leads,
and until the old node is back as a standby, streaming on the new primary's timeline (and
whether Patroni rewound it with pg_rewind: its log says so). Each fault first waits until the
cluster is whole (a primary, every standby streaming, one synchronous), so every failover
starts from a cluster that can take one. What the product did in the gap is read once the drill
has settled (tools/drill/database_verdict.py).
"""

import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from tools.drill.database_fence import FenceProbe
from tools.drill.pg_cluster import PrivateDatabaseCluster
from tools.drill.pg_node import PatroniNode

FAILOVER_TIMEOUT_SECONDS = 90.0  # for a new primary, and for the old one back as a standby
WHOLE_TIMEOUT_SECONDS = 120.0  # for the cluster to be whole before a fault
# A frozen primary is thawed this long after another node took over, so the new primary has
# taken writes by then and the old one comes back to a cluster that moved on.
THAW_AFTER_TAKEOVER_SECONDS = 5.0
STANDBY_ROLES = ("replica", "sync_standby", "quorum_standby")
_REWIND_RAN = "running pg_rewind from"
_REWIND_EXIT = "pg_rewind exit code="


@dataclass
class PrimaryFault:
    kind: str  # "crash" or "freeze"
    node: str
    killed_at: str  # the wall clock, ISO 8601
    orders_placed_before: int  # by the load, when the fault fell
    timeline_before: int | None
    new_primary: str | None = None  # None: none within FAILOVER_TIMEOUT_SECONDS
    seconds_to_new_primary: float | None = None
    timeline_after: int | None = None  # the new primary's, once the old node follows it
    # The old node back as a standby of the new primary, on its timeline (None: not within the wait)
    seconds_to_rejoin: float | None = None
    rejoined_as: str | None = None
    rewound: str = "no"  # "yes" (pg_rewind exit code 0), "failed" or "no" (not needed)
    seconds_frozen: float | None = None  # a freeze: from the SIGSTOP to the SIGCONT
    fence: dict = field(default_factory=dict)  # a freeze: tools/drill/database_fence.py


def primary_fault(cluster: PrivateDatabaseCluster, kind: str, *, database: str, orders_placed: int) -> dict:
    """Crash or freeze the primary, measure, and return the PrimaryFault as a dict."""
    if kind not in ("crash", "freeze"):
        raise ValueError(f"unknown database fault {kind!r}: crash or freeze")
    cluster.wait_until_healthy(timeout=WHOLE_TIMEOUT_SECONDS)
    victim = cluster.primary()
    assert victim is not None, "a whole cluster has a primary"
    log_offset = _log_size(victim)
    fault = PrimaryFault(
        kind=kind,
        node=victim.name,
        killed_at="",
        orders_placed_before=orders_placed,
        timeline_before=_timeline(cluster, victim.name),
    )
    fence = FenceProbe("127.0.0.1", victim.port, database) if kind == "freeze" else None
    if fence is not None:
        fence.connect_before_freeze()
    killed = time.monotonic()
    fault.killed_at = datetime.now(UTC).isoformat()
    if fence is None:
        victim.kill_postgres()
    else:
        victim.freeze()
        fence.write_in_flight()
    try:
        _await_new_primary(cluster, fault, killed)
    finally:
        if fence is not None:  # whatever happened, the node is thawed
            _thaw(cluster, victim, fault, fence, killed)
    if fence is None:
        _await_rejoin(cluster, fault, killed)
    fault.rewound = _rewound(victim, log_offset)
    return asdict(fault)


def _await_new_primary(cluster: PrivateDatabaseCluster, fault: PrimaryFault, killed: float) -> None:
    try:
        new = cluster.wait_for_primary(other_than=fault.node, timeout=FAILOVER_TIMEOUT_SECONDS)
    except TimeoutError:
        return
    fault.new_primary, fault.seconds_to_new_primary = new.name, round(time.monotonic() - killed, 2)


def _thaw(
    cluster: PrivateDatabaseCluster,
    victim: PatroniNode,
    fault: PrimaryFault,
    fence: FenceProbe,
    killed: float,
) -> None:
    """Past the takeover, SIGCONT; new writes aimed at the old node until it is back as a standby."""
    if fault.new_primary is not None:
        time.sleep(THAW_AFTER_TAKEOVER_SECONDS)
    victim.thaw()
    thawed = time.monotonic()
    fault.seconds_frozen = round(thawed - killed, 2)
    done = threading.Event()
    probing = threading.Thread(target=fence.probe_until, args=(done,), daemon=True)
    probing.start()
    try:
        _await_rejoin(cluster, fault, killed)
    finally:
        done.set()
        probing.join(timeout=30)
    fault.fence = fence.finish().summary(thawed)


def _await_rejoin(cluster: PrivateDatabaseCluster, fault: PrimaryFault, killed: float) -> None:
    """Until the old node streams, as a standby, on the timeline of the node that leads now."""
    deadline = time.monotonic() + FAILOVER_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        members = {member.get("name"): member for member in cluster.members()}
        old = members.get(fault.node, {})
        leader = next((m for m in members.values() if m.get("role") == "leader"), None)
        if (
            leader is not None
            and old.get("role") in STANDBY_ROLES
            and old.get("state") == "streaming"
            and old.get("timeline") == leader.get("timeline")
        ):
            fault.seconds_to_rejoin = round(time.monotonic() - killed, 2)
            fault.rejoined_as, fault.timeline_after = old["role"], leader.get("timeline")
            return
        time.sleep(0.2)


def _timeline(cluster: PrivateDatabaseCluster, name: str) -> int | None:
    member = next((m for m in cluster.members() if m.get("name") == name), {})
    timeline = member.get("timeline")
    return timeline if isinstance(timeline, int) else None


def _log_size(node: PatroniNode) -> int:
    path = node.home / "patroni.log"
    return path.stat().st_size if path.exists() else 0


def _rewound(node: PatroniNode, offset: int) -> str:
    """What Patroni's log of the node says since the fault: pg_rewind ran and how it ended."""
    with (node.home / "patroni.log").open("rb") as log:
        log.seek(offset)
        text = log.read().decode(errors="replace")
    return rewind_outcome(text)


def rewind_outcome(log_text: str) -> str:
    """ "yes": pg_rewind ran and exited 0; "failed": it ran and did not; "no": it did not run
    (the old node's WAL had not gone past the new timeline's start)."""
    if _REWIND_RAN not in log_text:
        return "no"
    exits = [line.split(_REWIND_EXIT)[1].strip() for line in log_text.splitlines() if _REWIND_EXIT in line]
    return "yes" if exits and exits[-1] == "0" else "failed"


def primary_fault_note(fault: dict) -> str:
    """The chaos log's line of one database fault."""
    what = "PostgreSQL SIGKILLed" if fault["kind"] == "crash" else "whole node frozen (SIGSTOP)"
    new = (
        f"no new primary within {FAILOVER_TIMEOUT_SECONDS:.0f} s"
        if fault["new_primary"] is None
        else f"{fault['new_primary']} primary after {fault['seconds_to_new_primary']} s"
    )
    thawed = "" if fault["seconds_frozen"] is None else f", thawed after {fault['seconds_frozen']} s"
    back = (
        "not back as a standby within the wait"
        if fault["seconds_to_rejoin"] is None
        else f"back as {fault['rejoined_as']} after {fault['seconds_to_rejoin']} s"
        f" (pg_rewind: {fault['rewound']})"
    )
    return f"primary {fault['node']}: {what}; {new}{thawed}; {back}"
