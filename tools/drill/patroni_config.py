"""The configuration of one Patroni node of the drill's PostgreSQL cluster, and Patroni's
clocks, chosen for a failover within seconds.

A PostgreSQL crash on the primary (its postmaster SIGKILLed, an OOM kill) is seen by that
node's Patroni within one loop; with `primary_start_timeout` 0 it then gives up the leader key
at once instead of restarting PostgreSQL in place, and the synchronous standby, woken by its
watch on the key, promotes itself. A node that dies or freezes whole stops renewing the key
and is replaced once the key's TTL runs out: Patroni accepts no TTL under 20 s.
"""

from pathlib import Path
from typing import Any

# How long the leader key lives unless its holder renews it: how long a dead or frozen primary
# keeps its role. Patroni raises any lower value to 20 s.
TTL_SECONDS = 20
# Each node's cycle: how soon a crashed PostgreSQL is seen and the leader key renewed.
LOOP_WAIT_SECONDS = 1
# How long a call to etcd or PostgreSQL is retried before a primary that cannot renew its key
# demotes itself; Patroni requires loop_wait + 2 * retry_timeout <= ttl.
RETRY_TIMEOUT_SECONDS = 5
# 0: a crashed primary fails over at once instead of restarting in place (Patroni's default
# waits 300 s). Safe with a synchronous standby: it holds every commit the client saw.
PRIMARY_START_TIMEOUT_SECONDS = 0

SUPERUSER = "postgres"
REPLICATION_USER = "replicator"


def dynamic_config(*, synchronous: bool) -> dict[str, Any]:
    """What every node of the cluster shares (Patroni keeps it in etcd once bootstrapped)."""
    return {
        "ttl": TTL_SECONDS,
        "loop_wait": LOOP_WAIT_SECONDS,
        "retry_timeout": RETRY_TIMEOUT_SECONDS,
        "primary_start_timeout": PRIMARY_START_TIMEOUT_SECONDS,
        # A commit returns once a standby has it; only that standby may be promoted.
        "synchronous_mode": synchronous,
        # ... and while no standby can take it, commits wait rather than go on unreplicated:
        # an order confirmed to a client must survive the next failover.
        "synchronous_mode_strict": synchronous,
        "postgresql": {
            # A former primary rejoins as a standby of the new one, its diverged WAL rewound.
            "use_pg_rewind": True,
            "use_slots": True,
            "parameters": {
                "max_connections": 200,  # a drill's web, workers, relays and beat on one node
                "shared_buffers": "64MB",
                "wal_level": "replica",
                "hot_standby": "on",
                "max_wal_senders": 10,
                "max_replication_slots": 10,
                "wal_keep_size": "256MB",
            },
        },
    }


def node_config(
    *,
    scope: str,
    name: str,
    home: Path,
    port: int,
    api_port: int,
    etcd_url: str,
    bin_dir: str,
    synchronous: bool,
) -> dict[str, Any]:
    """Patroni's configuration file of one node (JSON, which Patroni reads as YAML)."""
    loopback = "127.0.0.1"
    return {
        "scope": scope,
        "name": name,
        "log": {"level": "INFO"},
        "restapi": {"listen": f"{loopback}:{api_port}", "connect_address": f"{loopback}:{api_port}"},
        "etcd3": {"host": etcd_url.removeprefix("http://")},
        "bootstrap": {
            "dcs": dynamic_config(synchronous=synchronous),
            # checksums: pg_rewind needs them or wal_log_hints (Patroni sets both on)
            "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}, "data-checksums"],
        },
        "postgresql": {
            "listen": f"{loopback}:{port}",
            "connect_address": f"{loopback}:{port}",
            "data_dir": str(home / "data"),
            "bin_dir": bin_dir,
            "pgpass": str(home / "pgpass"),
            "authentication": {
                "superuser": {"username": SUPERUSER},
                "replication": {"username": REPLICATION_USER},
            },
            # Loopback only, without passwords: the machine's own PostgreSQL is set up alike.
            "pg_hba": [
                "local all all trust",
                f"host all all {loopback}/32 trust",
                f"host replication {REPLICATION_USER} {loopback}/32 trust",
            ],
            "parameters": {"unix_socket_directories": str(home)},
        },
    }
