"""A RabbitMQ node of the drill's own: started, restarted and stopped by the drill, so a broker
restart hurts nobody else on the machine (the machine's node is never touched).

It runs the installed RabbitMQ (3.10) under its own node name, ports and data directory.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from drill.processes import free_port


class PrivateRabbit:
    def __init__(self, *, heartbeat_seconds: int | None = None):
        # The server's heartbeat timeout (RabbitMQ's default 60 s; the lower of the client's
        # and the server's is used): how soon a client that went silent, its link cut, is
        # dropped and its unacknowledged messages go to the others.
        self.heartbeat_seconds = heartbeat_seconds
        self.name = f"drill-{uuid.uuid4().hex[:8]}@localhost"
        self.port = free_port()
        self.dist_port = free_port()
        self.home = Path(tempfile.mkdtemp(prefix="drill-rabbit-"))
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def start(self, timeout: float = 90.0) -> "PrivateRabbit":
        (self.home / "enabled_plugins").write_text("[].\n")
        if self.heartbeat_seconds is not None:
            (self.home / "rabbitmq.conf").write_text(f"heartbeat = {self.heartbeat_seconds}\n")
        shutil.chown(self.home, "rabbitmq", "rabbitmq")  # the server drops to the rabbitmq user
        for path in self.home.iterdir():
            shutil.chown(path, "rabbitmq", "rabbitmq")
        env = {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "RABBITMQ_NODENAME": self.name,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",  # loopback only, like the machine's own node
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist_port),
            "RABBITMQ_MNESIA_BASE": str(self.home / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.home / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.home / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(self.home / "pid"),
            "RABBITMQ_CONFIG_FILE": str(self.home / "rabbitmq"),
        }
        log = open(self.home / "server.out", "wb")  # noqa: SIM115 - the server process owns it
        self.process = subprocess.Popen(
            ["rabbitmq-server"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while True:  # await_startup fails at once while the node has not registered yet
            try:
                self._ctl("await_startup", "-t", "10", timeout=20)
                return self
            except subprocess.SubprocessError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(1)

    def restart_app(self, pause: float = 3.0) -> None:
        """What an operator's broker restart looks like to clients: every connection drops."""
        self._ctl("stop_app")
        time.sleep(pause)
        self._ctl("start_app")

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self._ctl("stop", timeout=60)
        except subprocess.SubprocessError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)  # the node is ours: all of it
        self.process.wait(timeout=30)
        shutil.rmtree(self.home, ignore_errors=True)

    def _ctl(self, *args: str, timeout: float = 60) -> str:
        result = subprocess.run(
            ["rabbitmqctl", "-n", self.name, *args], capture_output=True, text=True, timeout=timeout
        )
        if result.returncode != 0:
            raise subprocess.SubprocessError(
                f"rabbitmqctl {' '.join(args)}: {result.stderr or result.stdout}"
            )
        return result.stdout
