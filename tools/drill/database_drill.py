"""The database drill's part of the harness (`--database patroni`, `patroni-async`;
tools/drill/harness.py runs it): the cluster, the clocks, when each fault falls, and the
judgement once the drill has settled (tools/drill/database_faults.py, database_verdict.py)."""

import os
from importlib import metadata

from tools.drill.database_verdict import (
    answers_between,
    confirmed_parts_lost,
    database_problems,
    emails_unknown_to_the_database,
    gap_measures,
)
from tools.drill.load import LoadResult
from tools.drill.patroni_config import dynamic_config
from tools.drill.pg_cluster import PrivateDatabaseCluster
from tools.drill.stack import DrillStack

MODES = ("local", "patroni", "patroni-async")  # local: the machine's PostgreSQL, no cluster
# (share of the orders placed, fault): the primary crashes, later the new one, and once the
# primary's whole node freezes past Patroni's ttl.
DATABASE_FAULTS = ((0.2, "crash"), (0.45, "crash"), (0.7, "freeze"))
# A database drill runs its tasks under the product's own time limits and lease: the frozen
# primary is replaced only after Patroni's ttl, and a task waiting on it all that time must not
# run into the shorter limits the other drills use to settle fast (docs/drills.md says what
# happened when it did).
PRODUCT_CLOCKS = ("TASK_SOFT_TIME_LIMIT_SECONDS", "TASK_TIME_LIMIT_SECONDS", "NOTIFICATION_LEASE_SECONDS")


def database_cluster_for(mode: str, database: str) -> PrivateDatabaseCluster | None:
    """The drill's own cluster for `database`, synchronous unless the counter-proof asks; None
    on the machine's PostgreSQL."""
    if mode not in MODES:
        raise ValueError(f"unknown database mode {mode!r}: one of {', '.join(MODES)}")
    if mode == "local":
        return None
    return PrivateDatabaseCluster(synchronous=synchronous(mode), database=database)


def synchronous(mode: str) -> bool:
    """Only the counter-proof runs without a synchronous standby."""
    return mode == "patroni"


def fault_schedule(mode: str, orders: int, shares: tuple[tuple[float, str], ...]) -> list[tuple[int, str]]:
    """After how many orders placed which fault falls on the primary."""
    if mode == "local":
        return []
    return [(max(1, round(orders * share)), kind) for share, kind in shares]


def database_judgement(stack: DrillStack, faults: list[dict], load: LoadResult) -> tuple[list[str], dict]:
    """Once settled: each fault's gap measured (added to it), the failovers' problems, and the
    report's summary of the cluster; ([], {}) on the machine's PostgreSQL."""
    cluster = stack.database_cluster
    if cluster is None:
        return [], {}
    gap_measures(stack.database_dsn, faults, load.retried_answers)
    unknown_emails = emails_unknown_to_the_database(stack.database_dsn, stack.mailsim_url)
    parts_lost = confirmed_parts_lost(stack.database_dsn, load.shipments, load.refunds)
    problems = database_problems(
        faults, load.retried_answers, unknown_emails=unknown_emails, parts_lost=parts_lost
    )
    summary = _cluster_summary(cluster, load) | {
        "emails_unknown_to_the_database": unknown_emails,
        "parts_lost": parts_lost,
    }
    return problems, summary


def _cluster_summary(cluster: PrivateDatabaseCluster, load: LoadResult) -> dict:
    """The cluster's settings the failovers ran under (tools/drill/patroni_config.py), every
    answer the client retried, by status, and how loaded the machine was."""
    dcs = dynamic_config(synchronous=cluster.synchronous)
    settings = ("ttl", "loop_wait", "retry_timeout", "primary_start_timeout")
    return {
        "mode": "patroni" if cluster.synchronous else "patroni-async",
        "nodes": cluster.size,
        "patroni_version": metadata.version("patroni"),
        "patroni": {name: dcs[name] for name in settings}
        | {
            "synchronous_mode": dcs["synchronous_mode"],
            "synchronous_mode_strict": dcs["synchronous_mode_strict"],
            "use_pg_rewind": dcs["postgresql"]["use_pg_rewind"],
        },
        "retried_answers": answers_between(load.retried_answers, None, None),
        "product_clocks": list(PRODUCT_CLOCKS),
        # The machine's load averages (1, 5, 15 min) at the end: the failover times are this
        # machine's, under the drill and whatever else ran on it.
        "load_average": [round(load, 1) for load in os.getloadavg()],
    }
