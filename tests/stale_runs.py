"""What killed test runs left behind, deleted when a run starts: their RabbitMQ vhosts and
test databases. A run removes its own at its end; a run killed half way (a CI job stopped, a
terminal closed) does not, and the vhosts pile up: each holds its queues' files open in
RabbitMQ, and once the broker's file handles run out every new connection hangs.

Only what is both old and idle goes: its name says when its run started
(config/settings/test.py), older than STALE_AFTER_SECONDS (longer than any run of the suite or
its tools takes), and nothing is connected to it, so a run still going is never touched."""

import re
import time

import psycopg
from psycopg import sql

from infra.rabbitmq import RabbitAdmin

STALE_AFTER_SECONDS = 6 * 3600
_VHOST = re.compile(r"orders-test-(?P<started>\d{10})_[0-9a-f]{6}(-gw\d+)?")
_DATABASE = re.compile(r"test_orders_(?P<started>\d{10})_[0-9a-f]{6}(_gw\d+)?")


def _old(match: re.Match[str] | None, now: float) -> bool:
    return match is not None and now - int(match["started"]) > STALE_AFTER_SECONDS


def stale_vhosts_delete(admin: RabbitAdmin, *, now: float | None = None) -> list[str]:
    """The vhosts of killed test runs, deleted; their names."""
    now = time.time() if now is None else now
    deleted = []
    for name in admin.vhost_names():
        if _old(_VHOST.fullmatch(name), now) and admin.vhost_connections(name) == 0:
            admin.vhost_delete(name)
            deleted.append(name)
    return deleted


def stale_databases_drop(maintenance_url: str, *, now: float | None = None) -> list[str]:
    """The test databases of killed test runs, dropped; their names. One still in use is kept
    (DROP DATABASE refuses it)."""
    now = time.time() if now is None else now
    dropped = []
    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        names = [row[0] for row in connection.execute("SELECT datname FROM pg_database")]
        for name in names:
            if not _old(_DATABASE.fullmatch(name), now):
                continue
            try:
                connection.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))
            except (psycopg.errors.ObjectInUse, psycopg.errors.InvalidCatalogName):
                continue  # in use after all, or another process of this run dropped it first
            dropped.append(name)
    return dropped


def run_leftovers_remove(admin: RabbitAdmin, maintenance_url: str, *, run_id: str) -> list[str]:
    """The vhosts and databases of the processes of run `run_id` (`…_gwN`), removed once every
    process has ended; their names. A process does not remove its own when it ends: dropping a
    database forces a checkpoint that syncs every file the other processes' databases wrote,
    and unlinking thousands of files stalls the disk for everything else (RabbitMQ's node
    stopped accepting connections for minutes while the processes still testing waited)."""
    removed = []
    for name in admin.vhost_names():
        if name.startswith(f"orders-test-{run_id}-gw"):
            admin.vhost_delete(name)
            removed.append(name)
    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        names = [row[0] for row in connection.execute("SELECT datname FROM pg_database")]
        for name in names:
            if not name.startswith(f"test_orders_{run_id}_gw"):
                continue
            connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name]
            )
            connection.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
            removed.append(name)
    return removed
