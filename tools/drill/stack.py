"""The real product under drill: its own database (on the machine's PostgreSQL, or on a PostgreSQL
cluster of its own), its own RabbitMQ node (or cluster), and every process of the Procfile (web,
2 relays, N workers, beat, the mail simulator), started with bin/*."""

import base64
import random
import secrets
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tools.drill.broker_cluster import PrivateCluster
from tools.drill.broker_node import PrivateRabbit
from tools.drill.pg_cluster import PrivateDatabaseCluster
from tools.drill.processes import (
    ManagedProcess,
    database_url,
    free_port,
    isolated_process_env,
    manage_py,
)

# Seconds the drill's own connections give each node of a cluster to answer.
TOOLS_CONNECT_TIMEOUT_SECONDS = 3


@dataclass
class DrillStack:
    workdir: Path
    api_throttle_rate: str  # sized for the drill's stream: tools.drill.load.api_throttle_rate_for
    workers: int = 2
    relays: int = 2
    extra_env: dict[str, str] = field(default_factory=dict)
    database: str = field(default_factory=lambda: f"orders_drill_{uuid.uuid4().hex[:8]}")
    # One node, or a cluster whose URL lists every node (clients fail over along it).
    rabbit: PrivateRabbit | PrivateCluster = field(default_factory=PrivateRabbit)
    # A PostgreSQL cluster on Patroni (its `database` this stack's), reached through its
    # multi-host address; None: the machine's PostgreSQL server.
    database_cluster: PrivateDatabaseCluster | None = None
    processes: dict[str, ManagedProcess] = field(default_factory=dict)
    web_port: int = field(default_factory=free_port)
    mailsim_port: int = field(default_factory=free_port)
    # The simulator signs its delivery webhooks to our web (tools/bin/mailsim points them there).
    webhook_secret: str = field(
        default_factory=lambda: "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
    )
    # A second provider (MAIL_PROVIDER_FALLBACK=brevo): a simulator of its own on this port,
    # posting Brevo's webhooks with basic auth; None: no fallback.
    fallback_mailsim_port: int | None = None
    basic_auth: str = field(default_factory=lambda: f"drill:{secrets.token_urlsafe(18)}")
    fallback_api_key: str = field(default_factory=lambda: secrets.token_urlsafe(18))  # its own account
    # Clocks of the drill's below left at the product's own defaults (their variable names).
    product_clocks: tuple[str, ...] = ()

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def mailsim_url(self) -> str:
        return f"http://127.0.0.1:{self.mailsim_port}"

    @property
    def database_url(self) -> str:
        """The product's DATABASE_URL: on a cluster, its multi-host address as a deployment
        would give it."""
        if self.database_cluster is not None:
            return self.database_cluster.url
        return database_url(self.database)

    @property
    def database_dsn(self) -> str:
        """The drill's own connections (the verdict, the faults): on a cluster, with a connect
        timeout, so a frozen node that takes the connection and never answers is passed over."""
        if self.database_cluster is not None:
            return f"{self.database_cluster.url}&connect_timeout={TOOLS_CONNECT_TIMEOUT_SECONDS}"
        return database_url(self.database)

    @property
    def maintenance_dsn(self) -> str:
        """The server's `postgres` database (on a cluster: its primary's), to create and drop
        this stack's database and to end its connections."""
        if self.database_cluster is not None:
            return (
                f"{self.database_cluster.url_of('postgres')}&connect_timeout={TOOLS_CONNECT_TIMEOUT_SECONDS}"
            )
        return database_url("postgres")

    def _env(self) -> dict[str, str]:
        return {
            **isolated_process_env(
                settings_module="config.settings.base",
                database=self.database,
                broker_url=self.rabbit.url,
                mailsim_port=self.mailsim_port,
                workdir=self.workdir,
            ),
            "DATABASE_URL": self.database_url,
            "WEB_PORT": str(self.web_port),
            # The product's default limit refuses most of one token's drill stream, and a request
            # refused is an order not placed: sized for the drill (tools/drill/load.py says how).
            "API_THROTTLE_RATE": self.api_throttle_rate,
            # Short clocks, so a drill settles in minutes: fast retries, a provider read timeout
            # that a "stall" fault outlasts, short leases and sweeps.
            "DELIVERY_RETRY_BASE_DELAY_SECONDS": "1",
            "DELIVERY_RETRY_MAX_DELAY_SECONDS": "8",
            "DELIVERY_MAX_RETRIES": "10",
            "MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS": "1",
            "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": "2",
            "TASK_SOFT_TIME_LIMIT_SECONDS": "20",
            "TASK_TIME_LIMIT_SECONDS": "25",
            "NOTIFICATION_LEASE_SECONDS": "30",
            "OUTBOX_CLAIM_LEASE_SECONDS": "8",
            "OUTBOX_CONFIRM_TIMEOUT_SECONDS": "2",
            "OUTBOX_SWEEP_INTERVAL_SECONDS": "1",
            "LOG_LEVEL": "INFO",  # the drill waits for the processes' "ready" lines
            "INVOICE_ISSUED_WHEN": "paid",  # the default, which the verdict judges by, whatever is exported
            "RESEND_WEBHOOK_SECRET": self.webhook_secret,
            "MAILSIM_RESEND_WEBHOOK_SECRET": self.webhook_secret,
            **self._fallback_env(),
            **self.extra_env,
        }

    def env(self) -> dict[str, str]:
        env = self._env()
        for name in self.product_clocks:
            del env[name]
        return env

    @property
    def fallback_mailsim_url(self) -> str:
        assert self.fallback_mailsim_port is not None, "a stack with a fallback provider"
        return f"http://127.0.0.1:{self.fallback_mailsim_port}"

    def _fallback_env(self) -> dict[str, str]:
        if self.fallback_mailsim_port is None:
            return {}
        return {
            "MAIL_PROVIDER_FALLBACK": "brevo",
            "MAIL_PROVIDER_FALLBACK_URL": self.fallback_mailsim_url,
            "MAIL_PROVIDER_FALLBACK_API_KEY": self.fallback_api_key,
            "ANYMAIL_WEBHOOK_SECRET": self.basic_auth,  # Brevo's events: basic auth
        }

    def start(self) -> "DrillStack":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.rabbit.start()
        if self.database_cluster is not None:
            self.database_cluster.start()
        with psycopg.connect(self.maintenance_dsn, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.database}"')
        self._manage("migrate", "--no-input")
        self._manage("declare_topology")
        self.token = self._manage("create_api_token", "drill").strip()
        self._start("mailsim", ["tools/bin/mailsim"], ready=r"listening on")
        if self.fallback_mailsim_port is not None:
            self._start(
                "mailsim-fallback",
                ["tools/bin/mailsim"],
                ready=r"listening on",
                MAILSIM_PORT=str(self.fallback_mailsim_port),
                MAILSIM_DATA_DIR=str(self.workdir / "mailsim-fallback"),
                MAILSIM_WEBHOOK_BASIC_AUTH=self.basic_auth,
                MAILSIM_API_KEY=self.fallback_api_key,
            )
        self.start_app()
        return self

    def start_app(self) -> None:
        """The product's own processes: web, relays, workers, beat (not the simulator, which
        plays the provider, nor the broker)."""
        self._start("web", ["bin/web"], ready=r"Booting worker")
        for number in range(self.relays):
            self.start_relay(number)
        for number in range(self.workers):
            self.start_worker(number)
        self._start("beat", ["bin/beat"], ready=r"beat: Starting|Scheduler")

    def stop_app(self, *, kinds: tuple[str, ...] = ("web", "relay", "worker", "beat")) -> list[str]:
        """Stop the product's processes of these kinds (the simulator and the broker keep
        running): the names stopped."""
        names = [name for name in self.processes if name.startswith(kinds)]
        for name in names:
            self.processes[name].stop(timeout=20)
        return names

    def start_worker(self, number: int) -> None:
        self._start(f"worker{number}", ["bin/worker"], ready=r"ready", WORKER_NAME=f"worker{number}")

    def start_relay(self, number: int) -> None:
        self._start(f"relay{number}", ["bin/relay"], ready=r"ready", RELAY_NAME=f"relay{number}")

    def kill_and_restart(self, kind: str, rng: random.Random) -> str:
        """SIGKILL a random worker or relay (its whole process group), then start it again."""
        name = rng.choice([n for n in self.processes if n.startswith(kind)])
        self.processes[name].kill()
        number = int(name.removeprefix(kind))
        (self.start_worker if kind == "worker" else self.start_relay)(number)
        return name

    def terminate_database_connections(self) -> int:
        with psycopg.connect(self.maintenance_dsn, autocommit=True) as connection:
            row = connection.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s",
                [self.database],
            ).fetchone()
        assert row is not None  # a count answers one row
        return row[0]

    def stop(self, *, keep_database: bool = False) -> None:
        for process in self.processes.values():
            process.stop(timeout=20)
        self.rabbit.stop()
        if self.database_cluster is not None:
            self.database_cluster.stop()  # its data directories go with it
        elif not keep_database:
            with psycopg.connect(self.maintenance_dsn, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def _start(self, name: str, command: list[str], *, ready: str, **env: str) -> None:
        process = ManagedProcess(
            name, command, env={**self.env(), **env}, log_path=self.workdir / f"{name}.log"
        )
        self.processes[name] = process
        process.start(ready=ready, timeout=90)

    def manage(self, *args: str) -> str:
        """A `manage.py` command against this stack's database and broker: its output."""
        return manage_py(*args, env=self.env(), timeout=300)

    def _manage(self, *args: str) -> str:
        return self.manage(*args)
