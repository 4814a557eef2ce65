"""A PostgreSQL cluster of the drill's own: three PostgreSQL 15 nodes managed by Patroni, with
one etcd, on this machine; each node with its own port, data directory and REST API, all under
one run directory that the teardown removes.

With `synchronous` (the default) a commit returns only once a standby has it, and only that
standby may be promoted; without, the standbys replicate asynchronously (the counter-proof).
Clients get the nodes as one libpq multi-host address with `target_session_attrs=read-write`
(`url`), the way a production client finds the primary; who leads is Patroni's to say, asked
over its REST API (`members`, `primary`, `sync_standby`).

`python -m tools.drill.pg_cluster [-- COMMAND ...]` starts one and prints its address; with a
command, runs it with DATABASE_URL set to that address and tears the cluster down when it ends
(`DATABASE_HA=1 make run` does so); without, until Ctrl-C.
"""

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tools.drill.etcd_node import PrivateEtcd
from tools.drill.patroni_runtime import POSTGRES_USER, packages_copy, python_for
from tools.drill.pg_node import PatroniNode

MEMBERS_POLL_SECONDS = 0.2  # how often Patroni's REST API is asked who leads
DATABASE = "orders"


class PrivateDatabaseCluster:
    def __init__(self, size: int = 3, *, synchronous: bool = True, database: str = DATABASE):
        if size < 2:
            raise ValueError("a cluster has at least two nodes: a primary and a standby")
        self.size = size
        self.synchronous = synchronous
        self.database = database
        self.home = Path(tempfile.mkdtemp(prefix="drill-pg-"))
        self.home.chmod(0o755)  # Patroni runs as the postgres user: its node folder is in here
        self.etcd = PrivateEtcd(self.home / "etcd")
        self.nodes: list[PatroniNode] = []

    @property
    def url(self) -> str:
        """Every node, for libpq to try in turn until one takes writes."""
        return self.url_of(self.database)

    def url_of(self, database: str) -> str:
        """The multi-host address of another database of the cluster (`postgres`, say)."""
        hosts = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return f"postgres://postgres@{hosts}/{database}?target_session_attrs=read-write"

    def start(self, timeout: float = 180.0) -> "PrivateDatabaseCluster":
        """etcd, then every node at once (one initialises the cluster, the others copy it);
        returns when there is a primary, every standby streams, and one of them is synchronous."""
        bin_dir = postgres_bin_dir()
        site = self.home / "patroni-site"
        packages_copy(site)
        python = python_for(POSTGRES_USER)
        self.etcd.start()
        scope = f"drill-{uuid.uuid4().hex[:8]}"
        for number in range(self.size):
            home = self.home / f"node{number}"
            home.mkdir(mode=0o700)
            shutil.chown(home, POSTGRES_USER, POSTGRES_USER)
            node = PatroniNode(
                name=f"node{number}", scope=scope, home=home, etcd_url=self.etcd.client_url,
                python=python, site=site, bin_dir=bin_dir, synchronous=self.synchronous,
            )  # fmt: skip
            self.nodes.append(node.start())
        self.wait_until_healthy(timeout=timeout, every_node_running=True)
        return self

    def stop(self) -> None:
        """The standbys first, together, then the primary: no standby is promoted meanwhile,
        and the primary's commits do not wait for a standby that is gone."""
        primary = self.primary()
        standbys = [node for node in self.nodes if node is not primary]
        with ThreadPoolExecutor(max_workers=len(self.nodes)) as stopping:
            list(stopping.map(PatroniNode.stop, standbys))
        if primary is not None:
            primary.stop()
        self.etcd.stop()
        shutil.rmtree(self.home, ignore_errors=True)

    def node(self, name: str) -> PatroniNode:
        return next(node for node in self.nodes if node.name == name)

    def members(self) -> list[dict[str, Any]]:
        """The cluster as a running node's Patroni sees it: each member's name, role
        (leader, sync_standby, replica), state and timeline; [] if no node answers. A frozen
        node is not asked."""
        for node in self.nodes:
            if not node.running or node.frozen:  # a frozen node would hold the question
                continue
            status, body = node.api("/cluster")
            if status == 200 and isinstance(body, dict):
                return list(body.get("members", []))
        return []

    def primary(self) -> PatroniNode | None:
        return self._member_with_role("leader")

    def sync_standby(self) -> PatroniNode | None:
        return self._member_with_role("sync_standby")

    def _member_with_role(self, role: str) -> PatroniNode | None:
        for member in self.members():
            if member.get("role") == role and member.get("state") in ("running", "streaming"):
                return self.node(member["name"])
        return None

    def healthy(self) -> bool:
        """A running primary, every other node streaming from it, and (if synchronous) one of
        them its synchronous standby."""
        members = self.members()
        if len(members) != self.size:
            return False
        roles = [member.get("role") for member in members]
        states_ok = all(
            member.get("state") == ("running" if member.get("role") == "leader" else "streaming")
            for member in members
        )
        return states_ok and roles.count("leader") == 1 and (not self.synchronous or "sync_standby" in roles)

    def wait_until_healthy(self, *, timeout: float, every_node_running: bool = False) -> None:
        deadline = time.monotonic() + timeout
        while not self.healthy():
            exited = [node for node in self.nodes if node.process is not None and not node.running]
            if every_node_running and exited:
                raise RuntimeError(f"Patroni of {exited[0].name} exited:\n{exited[0].log_tail()}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the cluster was not healthy within {timeout:.0f} s: {self.describe()}")
            time.sleep(MEMBERS_POLL_SECONDS)

    def wait_for_primary(self, *, other_than: str | None = None, timeout: float = 60.0) -> PatroniNode:
        """The primary, once there is one other than `other_than` (a node just killed)."""
        deadline = time.monotonic() + timeout
        while True:
            primary = self.primary()
            if primary is not None and primary.name != other_than:
                return primary
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"no primary other than {other_than} within {timeout:.0f} s: {self.describe()}"
                )
            time.sleep(MEMBERS_POLL_SECONDS)

    def describe(self) -> str:
        members = self.members()
        if not members:
            return "no node answers; logs under " + str(self.home)
        return "; ".join(
            f"{m.get('name')} {m.get('role')} {m.get('state')} port {m.get('port')}" for m in members
        )


def postgres_bin_dir() -> str:
    """Where the server's binaries are (initdb, pg_ctl, postgres, pg_rewind): pg_config's word."""
    try:
        return subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise RuntimeError(f"pg_config --bindir failed ({exc}): is PostgreSQL's server installed?") from exc


class _Stop(Exception):
    """SIGTERM: stop as Ctrl-C does (the teardown runs)."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Stop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.drill.pg_cluster",
        description="A PostgreSQL cluster on Patroni on this machine; runs COMMAND with DATABASE_URL "
        "set to it, or waits for Ctrl-C; then tears it down.",
    )
    parser.add_argument("--nodes", type=int, default=3, help="PostgreSQL nodes (default 3)")
    parser.add_argument(
        "--asynchronous", action="store_true", help="standbys replicate asynchronously (the counter-proof)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.nodes < 2:
        parser.error("--nodes: a cluster has at least two nodes")
    signal.signal(signal.SIGTERM, _on_sigterm)
    cluster = PrivateDatabaseCluster(args.nodes, synchronous=not args.asynchronous)
    try:
        print(f"starting {args.nodes} PostgreSQL nodes on Patroni under {cluster.home}", flush=True)
        cluster.start()
        for node in cluster.nodes:
            print(f"  {node.name}: PostgreSQL on port {node.port}, Patroni's REST API {node.api_url}")
        print(f"  {cluster.describe()}\n  DATABASE_URL={cluster.url}", flush=True)
        return _run(command, cluster.url) if command else _wait()
    except (KeyboardInterrupt, _Stop):
        return 130
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl-C must not cut the teardown short
            signal.signal(sig, signal.SIG_IGN)
        with contextlib.suppress(OSError):  # whoever read our output may be gone
            print("stopping the PostgreSQL cluster", flush=True)
        cluster.stop()


def _run(command: list[str], url: str) -> int:
    child = subprocess.Popen(command, env={**os.environ, "DATABASE_URL": url})
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            continue  # Ctrl-C reached the command too (one process group): it stops by itself
        except _Stop:
            child.terminate()  # only we were told: pass it on, then wait for it


def _wait() -> int:
    print("  Ctrl-C stops it", flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    sys.exit(main())
