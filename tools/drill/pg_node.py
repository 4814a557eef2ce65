"""One PostgreSQL node of the drill's cluster: a Patroni process, run as the postgres user,
that starts and watches its PostgreSQL (its own port, data directory and REST API).

The faults a drill needs act on processes this node started, found by their pid, never by a
name: `kill_postgres` is a PostgreSQL crash (its postmaster and every backend SIGKILLed, Patroni
alive to see it), `kill` a dead machine (Patroni too), `freeze`/`thaw` a node that stops
answering (SIGSTOP) and comes back (SIGCONT), `start` again a node that rejoins.
"""

import contextlib
import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tools.drill.patroni_config import node_config
from tools.drill.patroni_runtime import POSTGRES_USER
from tools.drill.processes import free_port


class PatroniNode:
    def __init__(
        self, *, name: str, scope: str, home: Path, etcd_url: str, python: str, site: Path, bin_dir: str,
        synchronous: bool,
    ):  # fmt: skip
        self.name = name
        self.home = home
        self.port = free_port()
        self.api_port = free_port()
        self.python = python
        self.site = site
        self.config = node_config(
            scope=scope, name=name, home=home, port=self.port, api_port=self.api_port,
            etcd_url=etcd_url, bin_dir=bin_dir, synchronous=synchronous,
        )  # fmt: skip
        self.process: subprocess.Popen | None = None
        self.frozen = False  # SIGSTOPped by freeze(): its REST API cannot answer

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> "PatroniNode":
        """Start Patroni (it starts PostgreSQL: a new cluster, a copy of the primary, or the
        data directory it had). Returns at once: the cluster waits for its role."""
        config_path = self.home / "patroni.yml"
        config_path.write_text(json.dumps(self.config, indent=2))  # JSON is YAML
        log = open(self.home / "patroni.log", "ab")  # noqa: SIM115 - Patroni and PostgreSQL own it
        self.process = subprocess.Popen(
            [self.python, "-m", "patroni", str(config_path)],
            cwd=self.home,
            env={
                "PATH": f"{self.config['postgresql']['bin_dir']}:/usr/bin:/bin",
                "PYTHONPATH": str(self.site),
                "PYTHONDONTWRITEBYTECODE": "1",
                "HOME": str(self.home),
                "LC_ALL": "C.UTF-8",
            },
            user=POSTGRES_USER,
            group=POSTGRES_USER,
            extra_groups=[],
            stdout=log,  # PostgreSQL's own log lines come here too (no logging collector)
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        return self

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    def api(self, path: str, *, timeout: float = 2.0) -> tuple[int, Any]:
        """GET a path of this node's REST API: the status (0 if no answer) and the JSON body."""
        try:
            with urllib.request.urlopen(f"{self.api_url}{path}", timeout=timeout) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as refused:  # /primary answers 503 on a standby, with a body
            with contextlib.suppress(ValueError):
                return refused.code, json.load(refused)
            return refused.code, None
        except (OSError, ValueError):
            return 0, None

    def state(self) -> dict[str, Any] | None:
        """What this node's Patroni says of itself (role, state, timeline), or None."""
        status, body = self.api("/patroni")
        return body if status == 200 and isinstance(body, dict) else None

    def postmaster_pid(self) -> int | None:
        """The running postmaster of this node's data directory, by its pid file, checked
        against the process's command line (a pid file can outlive its process)."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data_dir / "postmaster.pid").read_text().splitlines()[0])
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if str(self.data_dir).encode() in command:
                return pid
        return None

    def postgres_pids(self) -> list[int]:
        """The postmaster and its children (backends, WAL sender and receiver, checkpointer):
        each child of PostgreSQL's has a process group of its own, so they are found by parent."""
        postmaster = self.postmaster_pid()
        if postmaster is None:
            return []
        children = [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and _parent_pid(entry) == postmaster
        ]
        return [postmaster, *children]

    def kill_postgres(self) -> int:
        """SIGKILL this node's PostgreSQL, every process of it (a crash: no checkpoint, no
        goodbye to clients or standbys); Patroni lives on. The postmaster's pid."""
        pids = self.postgres_pids()
        if not pids:
            raise RuntimeError(f"{self.name}: no PostgreSQL running")
        self._signal_pids(pids, signal.SIGKILL)
        return pids[0]

    def kill(self) -> None:
        """SIGKILL the whole node: Patroni and its PostgreSQL (a machine that died)."""
        self._signal_node(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=10)

    def freeze(self) -> None:
        """SIGSTOP the whole node: its sockets stay open and nothing answers."""
        self._signal_node(signal.SIGSTOP)
        self.frozen = True

    def thaw(self) -> None:
        self._signal_node(signal.SIGCONT)
        self.frozen = False

    def stop(self, timeout: float = 30.0) -> None:
        """Patroni's own shutdown (it stops PostgreSQL and gives up its key); then SIGKILL
        whatever of this node is left."""
        if self.running:
            assert self.process is not None
            self.thaw()  # a frozen node cannot stop
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=timeout)
        self._signal_node(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=10)

    def log_tail(self, lines: int = 40) -> str:
        path = self.home / "patroni.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def _signal_node(self, sig: int) -> None:
        postgres = self.postgres_pids()  # read first: a SIGKILLed Patroni's PostgreSQL lives on
        if self.running and self.process is not None:
            if self.process.pid in (0, 1, os.getpgid(0)):
                raise RuntimeError(f"refusing to signal process group {self.process.pid}")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)  # Patroni's group: it started in a session of its own
        self._signal_pids(postgres, sig)

    @staticmethod
    def _signal_pids(pids: list[int], sig: int) -> None:
        """The postmaster first: stopped or killed, it starts no new child meanwhile."""
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)


def _parent_pid(process: Path) -> int | None:
    """From /proc/PID/stat, "pid (comm) state ppid ...": comm may hold spaces, never ")"."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int((process / "stat").read_text().rpartition(")")[2].split()[1])
    return None
