"""Real processes for the tests, the drill and the benchmark, the one module for them: a free
port, the environment of a product process, `manage.py`, and a process started, waited for
until it says it is ready, stopped or killed (the whole process group)."""

import contextlib
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TypedDict
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[2]


class ServerParams(TypedDict):
    host: str
    port: int
    user: str


# The local PostgreSQL server on which drills and benchmarks create their own databases.
PG: ServerParams = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}


def database_url(
    database: str,
    *,
    host: str = PG["host"],
    port: int = PG["port"],
    user: str = PG["user"],
    password: str = "",
) -> str:
    """The URL of a database on the local server (or on the server named)."""
    credentials = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
    return f"postgres://{credentials}@{host}:{port}/{database}"


# Listening ports are drawn below the kernel's ephemeral range (32768-60999 on Linux): a port
# from that range, free when drawn, can be taken by any outgoing connection before our server
# binds it (a RabbitMQ cluster forming makes hundreds of them). And below 30000: a private
# RabbitMQ node's distribution port is drawn here too, and its CLI tools (rabbitmqctl) listen
# on that port + 10000 to + 10010 while they run, which must not land on a port drawn here.
LISTEN_PORTS = range(20000, 30000)
_handed_out: list[int] = []  # this process's latest draws, perhaps not bound yet


def free_port() -> int:
    """A port nothing listens on now, for a server about to start. A server binds it seconds
    later (a Celery Flower after its imports), so two draws must not meet in between: each
    pytest-xdist process of a test run draws from its own share of LISTEN_PORTS, and a process
    does not hand out one of its latest draws again."""
    ports = _listen_ports_of_this_process()
    for _ in range(10 * len(ports)):
        port = random.choice(ports)
        if port in _handed_out:
            continue
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:  # in use: draw again
                continue
        _handed_out[:] = [*_handed_out[-63:], port]
        return port
    raise RuntimeError(f"no free port in {ports.start}-{ports.stop - 1} for a server of the tests")


def _listen_ports_of_this_process() -> range:
    """LISTEN_PORTS, or this test process's share of them (PYTEST_XDIST_WORKER "gwN" of
    PYTEST_XDIST_WORKER_COUNT, which the processes it starts inherit)."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER", ""), os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if not (worker.startswith("gw") and worker[2:].isdigit() and count.isdigit() and int(count) > 0):
        return LISTEN_PORTS
    share = len(LISTEN_PORTS) // int(count)
    start = LISTEN_PORTS.start + (int(worker[2:]) % int(count)) * share
    return range(start, start + share)


def process_env(
    *,
    database_url: str,
    broker_url: str,
    mail_url: str,
    settings_module: str = "config.settings.base",
    workdir: Path | None = None,
    **extra: str,
) -> dict[str, str]:
    """The environment of a product process (bin/*, celery, gunicorn, manage.py) started by a
    test, a drill or a benchmark: this one with the virtualenv first on PATH, and its own
    database, broker and mail provider; with `workdir`, the state files of beat, Prometheus
    and the mail simulator under it. `extra` adds variables or overrides these."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "MAIL_PROVIDER_URL": mail_url,
        "PYTHONUNBUFFERED": "1",
    }
    if workdir is not None:
        env |= {
            "MAILSIM_DATA_DIR": str(workdir / "mailsim"),
            "PROMETHEUS_MULTIPROC_DIR": str(workdir / "prometheus"),
            "CELERY_BEAT_SCHEDULE_FILENAME": str(workdir / "beat-schedule"),
        }
    return env | extra


def isolated_process_env(
    *, settings_module: str, database: str, broker_url: str, mailsim_port: int, workdir: Path
) -> dict[str, str]:
    """The environment of a product process of a drill or a benchmark: its own database on
    the local server, broker and mail simulator (on `mailsim_port`), state files under `workdir`."""
    return process_env(
        database_url=database_url(database),
        broker_url=broker_url,
        mail_url=f"http://127.0.0.1:{mailsim_port}",
        settings_module=settings_module,
        workdir=workdir,
        MAILSIM_PORT=str(mailsim_port),
    )


def manage_py(*args: str, env: dict[str, str], timeout: float = 600) -> str:
    """Run a `manage.py` command of this checkout with its own environment; its output, or a
    RuntimeError with the end of what it said on stderr."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed: {result.stderr[-2000:]}")
    return result.stdout


def _default_interrupt() -> None:
    """Ctrl-C (SIGINT) does what it does in a terminal, even when this process was started in
    the background, where the shell ignores SIGINT and its children inherit that (Python
    then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ManagedProcess:
    def __init__(
        self, name: str, command: list[str], *, env: dict[str, str], log_path: Path, cwd: Path = REPO
    ):
        self.name = name
        self.command = command
        self.env = env
        self.log_path = log_path
        self.cwd = cwd  # another tree than this checkout: the image's files (test_image_runtime.py)
        self._process: subprocess.Popen | None = None

    @property
    def started(self) -> bool:
        return self._process is not None

    @property
    def process(self) -> subprocess.Popen:
        """The running (or exited) process; only after start()."""
        assert self._process is not None, f"{self.name} was never started"
        return self._process

    def start(self, *, ready: str, timeout: float = 30.0) -> "ManagedProcess":
        # A restarted process appends to the same log: only what it writes now says "ready".
        self.log_offset = len(self.log_text())
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child owns it while it runs
        self._process = subprocess.Popen(
            self.command,
            cwd=self.cwd,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: we can signal its children too
            preexec_fn=_default_interrupt,
        )
        log.close()
        try:
            self.wait_for_log(ready, timeout=timeout, start_at=self.log_offset)
        except TimeoutError:
            # Not ready is not left running: a worker still retrying its broker would wake
            # later and take the next test's messages with this test's settings.
            self.stop()
            raise
        return self

    def wait_for_log(self, pattern: str, *, timeout: float, start_at: int = 0) -> re.Match:
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while time.monotonic() < deadline:
            match = regex.search(self.log_text()[start_at:])
            if match:
                return match
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited ({self.process.returncode}):\n{self.log_tail()}")
            time.sleep(0.1)
        raise TimeoutError(f"{self.name} did not log {pattern!r} within {timeout}s:\n{self.log_tail()}")

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the group, then SIGKILL what is left. Not a warm shutdown for a Celery
        worker: its main process begins one, but the pool's children take SIGTERM's default
        action (celery/concurrency/prefork.py resets it in each child) and end where they
        stand, so a task in flight is redelivered as after a crash. A test that needs a
        task's work done waits for it before it stops the worker."""
        if self._process is None or self._process.poll() is not None:
            return
        self._signal_group(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self._signal_group(signal.SIGKILL)  # children that outlived their parent

    def kill(self) -> None:
        if self._process is None:
            return
        self._signal_group(signal.SIGKILL)
        self.process.wait(timeout=10)

    def _signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)
