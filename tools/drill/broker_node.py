"""A RabbitMQ node of the drill's own: started, killed, restarted and stopped by the drill,
so a broker fault hurts nobody else on the machine (the machine's node is never touched).

It runs the installed RabbitMQ (3.10) under its own node name, ports and data directory. A
restart is a hard one: SIGKILL of the node's whole process group (what a crashed machine or an
OOM kill looks like), then a start on the same data directory, so durable queues and their
messages come back from disk. The nodes share the Erlang cookie of the rabbitmq user, which
rabbitmqctl (and a cluster of these nodes, tools/drill/broker_cluster.py) needs.
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

from tools.drill.processes import free_port


class PrivateRabbit:
    def __init__(self, prefix: str = "drill", *, heartbeat_seconds: int | None = None):
        # The server's heartbeat timeout (RabbitMQ's default 60 s; the lower of the client's
        # and the server's is used): how soon a client that went silent, its link cut, is
        # dropped and its unacknowledged messages go to the others.
        self.heartbeat_seconds = heartbeat_seconds
        self.name = f"{prefix}-{uuid.uuid4().hex[:8]}@localhost"
        self.port = free_port()
        self.dist_port = free_port()
        self.home = Path(tempfile.mkdtemp(prefix="drill-rabbit-"))
        self.process: subprocess.Popen | None = None
        # The Erlang VM's process group: the packaged script starts it through `su -c`, which
        # gives it a session (and a group) of its own, out of reach of a signal to ours.
        self.node_group: int | None = None

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 90.0) -> "PrivateRabbit":
        (self.home / "pid").unlink(missing_ok=True)  # a killed node's file names a dead VM
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
        log = open(self.home / "server.out", "ab")  # noqa: SIM115 - the server process owns it
        self.process = subprocess.Popen(
            ["rabbitmq-server"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.await_startup(timeout)
        self.node_group = os.getpgid(self._beam_pid())
        return self

    def await_startup(self, timeout: float = 90.0) -> None:
        assert self.process is not None  # started
        deadline = time.monotonic() + timeout
        while True:  # await_startup fails at once while the node has not registered yet
            try:
                self.ctl("await_startup", "-t", "10", timeout=20)
                return
            except subprocess.SubprocessError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(1)

    def kill(self) -> None:
        """SIGKILL the node's whole process group (the server started in its own session):
        no clean shutdown, no goodbye to clients or to the other nodes of a cluster."""
        if self.process is None:
            return
        ours = (0, 1, os.getpgid(0))  # never the init's, the kernel's or our own group
        groups = {
            group for group in (self.process.pid, self.node_group) if group is not None and group not in ours
        }
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.node_group = None

    def restart_hard(self, pause: float = 3.0) -> None:
        """A broker restart as a crash does it: SIGKILL, a pause, a start on the same data."""
        self.kill()
        time.sleep(pause)
        self.start()

    def stop(self) -> None:
        if self.process is None:
            return
        if self.running:
            try:
                self.ctl("stop", timeout=60)
            except subprocess.SubprocessError:
                self.kill()
        self.kill()  # whatever of the group outlived the node (the group is ours: all of it)
        shutil.rmtree(self.home, ignore_errors=True)

    def _beam_pid(self) -> int:
        """The Erlang VM of this node: the pid file the server writes, or the process whose
        command line names this node (its name is unique to this drill)."""
        with contextlib.suppress(FileNotFoundError, ValueError):
            return int((self.home / "pid").read_text().strip())
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                command = (entry / "cmdline").read_bytes().split(b"\0")
                if b"beam" in command[0] and self.name.encode() in command:
                    return int(entry.name)
        raise RuntimeError(f"the Erlang VM of {self.name} was not found")

    def ctl(self, *args: str, timeout: float = 60, tool: str = "rabbitmqctl") -> str:
        result = subprocess.run(
            [tool, "-n", self.name, *args], capture_output=True, text=True, timeout=timeout
        )
        if result.returncode != 0:
            raise subprocess.SubprocessError(f"{tool} {' '.join(args)}: {result.stderr or result.stdout}")
        return result.stdout
