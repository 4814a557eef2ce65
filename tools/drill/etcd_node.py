"""The etcd of the drill's PostgreSQL cluster: where its Patroni nodes keep the leader key.

One node (the drill's machine is one failure domain anyway), on free loopback ports, with its
data under the cluster's run directory; the binary is Debian's (scripts/ensure-etcd.sh says
why it is taken out of the package rather than installed).
"""

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from tools.drill.processes import REPO, free_port

HEALTH_POLL_SECONDS = 0.2


def etcd_binary() -> str:
    result = subprocess.run(
        [REPO / "scripts" / "ensure-etcd.sh"], capture_output=True, text=True, timeout=300
    )
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip() or "scripts/ensure-etcd.sh found no etcd")
    return result.stdout.strip()


class PrivateEtcd:
    def __init__(self, home: Path, name: str = "drill-etcd"):
        self.home = home
        self.name = name
        self.client_port = free_port()
        self.peer_port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def client_url(self) -> str:
        return f"http://127.0.0.1:{self.client_port}"

    def start(self, timeout: float = 30.0) -> "PrivateEtcd":
        peer_url = f"http://127.0.0.1:{self.peer_port}"
        self.home.mkdir(parents=True, exist_ok=True)
        log = open(self.home / "etcd.log", "ab")  # noqa: SIM115 - the server process owns it
        self.process = subprocess.Popen(
            [
                etcd_binary(),
                f"--name={self.name}",
                f"--data-dir={self.home / 'data'}",
                f"--listen-client-urls={self.client_url}",
                f"--advertise-client-urls={self.client_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster={self.name}={peer_url}",
                "--initial-cluster-state=new",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while not self.healthy():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"etcd did not come up:\n{self.log_tail()}")
            time.sleep(HEALTH_POLL_SECONDS)
        return self

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.client_url}/health", timeout=2) as response:
                return json.load(response).get("health") == "true"
        except (OSError, urllib.error.URLError, ValueError):
            return False

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def log_tail(self, lines: int = 30) -> str:
        path = self.home / "etcd.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])
