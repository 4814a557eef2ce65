"""The benchmark's own world: a database and a vhost of its own, the mail simulator, and the
workers of the pipelines, started and stopped phase by phase. Set up before Django is."""

import os
import sys
import time
import uuid
from pathlib import Path

import psycopg
import requests

from tools.drill.processes import (
    PG,
    ManagedProcess,
    database_url,
    free_port,
    isolated_process_env,
    manage_py,
)

MANAGEMENT = "http://127.0.0.1:15672/api"
# Every pipeline's worker, unless a phase varies it: the comparison is of the same processes.
WORKER_PROCESSES = 2
NAIVE_WORKER = [
    *(sys.executable, "-m", "celery", "-A", "tools.bench.naive.pipeline:naive_app", "worker"),
    *("-Q", "bench.naive", "-c", str(WORKER_PROCESSES), "-n", "bench-naive@%h", "-l", "INFO"),
]
# Celery's Django fixup closes a pool process's database connection around every task unless
# CELERY_DB_REUSE_MAX is set, and then still every that many tasks (the product sets 1000, the
# naive app copies it). Django's CONN_MAX_AGE plays no part in a worker: nothing sends the
# request signals that apply it. A count no bench run reaches keeps each connection for the
# pool process's whole life.
CONNECTIONS_NEVER_CLOSED = str(2**62)
# The relay processes of the scaling phase poll this often: they publish every event there,
# and the command's default pause (2 s) would leave the workers idle at the start of a run of
# a few seconds, a cost of the poll rather than of publishing.
RELAY_INTERVAL_SECONDS = 0.1


class BenchEnvironment:
    def __init__(self, workdir: Path):
        run = uuid.uuid4().hex[:8]
        self.workdir = workdir
        self.database = f"orders_bench_{run}"
        self.vhost = f"orders-bench-{run}"
        self.mailsim_port = free_port()
        self.processes: dict[str, ManagedProcess] = {}

    @property
    def database_url(self) -> str:
        return database_url(self.database)

    @property
    def broker_url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:5672/{self.vhost}"

    @property
    def mailsim_url(self) -> str:
        return f"http://127.0.0.1:{self.mailsim_port}"

    def env(self, **extra: str) -> dict[str, str]:
        return {
            **isolated_process_env(
                settings_module="tools.bench.settings",
                database=self.database,
                broker_url=self.broker_url,
                mailsim_port=self.mailsim_port,
                workdir=self.workdir,
            ),
            "LOG_LEVEL": "INFO",
            # No web process here, and the naive pipeline has no webhooks: the simulator posts
            # none, so both pipelines are measured on the same sending work.
            "MAILSIM_WEBHOOK_URL_RESEND": "",
            "MAILSIM_WEBHOOK_URL_BREVO": "",
            "MAILSIM_WEBHOOK_URL_POSTMARK": "",
            **extra,
        }

    def create(self) -> None:
        (self.workdir / "prometheus").mkdir(parents=True, exist_ok=True)
        with psycopg.connect(**PG, dbname="postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.database}"')
        auth = ("guest", "guest")
        requests.put(f"{MANAGEMENT}/vhosts/{self.vhost}", auth=auth, timeout=10).raise_for_status()
        requests.put(
            f"{MANAGEMENT}/permissions/{self.vhost}/guest",
            json={"configure": ".*", "write": ".*", "read": ".*"},
            auth=auth,
            timeout=10,
        ).raise_for_status()
        os.environ.update(self.env(LOG_LEVEL="WARNING"))  # the runner is a process of the benchmark too
        self._manage("migrate", "--no-input")
        self._manage("declare_topology")
        self.start("mailsim", ["tools/bin/mailsim"], ready="listening on")

    def start(self, name: str, command: list[str], *, ready: str = " ready", **env: str) -> ManagedProcess:
        process = ManagedProcess(name, command, env=self.env(**env), log_path=self.workdir / f"{name}.log")
        self.processes[name] = process
        return process.start(ready=ready, timeout=90)

    def start_our_worker(self, *, processes: int = WORKER_PROCESSES) -> ManagedProcess:
        return self.start(
            "worker", ["bin/worker"], WORKER_NAME="bench-worker", WORKER_CONCURRENCY=str(processes)
        )

    def start_our_relay(self) -> None:
        self.start("relay", ["bin/relay"], RELAY_NAME="bench-relay")
        self.start("beat", ["bin/beat"], ready="Scheduler|beat: Starting")

    def start_relay_commands(self, count: int) -> list[str]:
        """`count` processes of `manage.py relay_outbox`, those not already running started,
        each connected to the database (its first sweep under way or done); their names."""
        names = [f"relay-command-{number}" for number in range(1, count + 1)]
        started = [name for name in names if name not in self.processes]
        for name in started:
            # The command logs nothing until it publishes: it is ready once its first sweep
            # has connected to the database, under a name of its own.
            self.start(
                name,
                [sys.executable, "manage.py", "relay_outbox", "--interval", str(RELAY_INTERVAL_SECONDS)],
                ready="",
                DATABASE_URL=f"{self.database_url}?application_name=bench-{name}",
            )
        self._wait_for_sessions(started)
        return names

    def start_naive_worker(self) -> ManagedProcess:
        return self.start("naive", NAIVE_WORKER)

    def start_tuned_naive_worker(self, *, prefetch_multiplier: int) -> ManagedProcess:
        """The naive worker as a team tunes it first: database connections kept for the pool
        processes' life, and the prefetch multiplier given (naive runs at Celery's 4)."""
        return self.start(
            "tuned_naive",
            [*NAIVE_WORKER, "--prefetch-multiplier", str(prefetch_multiplier)],
            CELERY_DB_REUSE_MAX=CONNECTIONS_NEVER_CLOSED,
        )

    def stop(self, name: str) -> None:
        process = self.processes.pop(name, None)
        if process is not None:
            process.stop(timeout=30)

    def destroy(self) -> None:
        for name in list(self.processes):
            self.stop(name)
        requests.delete(f"{MANAGEMENT}/vhosts/{self.vhost}", auth=("guest", "guest"), timeout=10)
        from django.db import connections

        connections.close_all()
        with psycopg.connect(**PG, dbname="postgres", autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def _manage(self, *args: str) -> None:
        manage_py(*args, env=self.env())

    def _wait_for_sessions(self, names: list[str], timeout: float = 90) -> None:
        """Until each named process has a session of the database as `bench-<name>`."""
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.database_url, autocommit=True) as connection:
            while True:
                connected = connection.execute(
                    "SELECT DISTINCT application_name FROM pg_stat_activity "
                    "WHERE datname = %s AND application_name = ANY(%s)",
                    [self.database, [f"bench-{name}" for name in names]],
                ).fetchall()
                if len(connected) == len(names):
                    return
                for name in names:
                    process = self.processes[name]
                    if process.started and process.process.poll() is not None:
                        raise RuntimeError(f"{name} exited:\n{process.log_tail()}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{names} had no database session within {timeout}s")
                time.sleep(0.1)
