"""Two application hosts on one machine: network namespaces `a` and `b`, each with its own
web, relay and worker (and the one beat on host b), reaching PostgreSQL, the drill's own
RabbitMQ node and the mail simulator through proxies on its root-side address
(tools/drill/netproxy.py). The database, the broker and the simulator stay in the root namespace:
they are the shared services; only an application host's link is ever cut."""

from dataclasses import dataclass, field
from urllib.parse import quote

from tools.drill.broker_node import PrivateRabbit
from tools.drill.netns import HostNetwork
from tools.drill.netproxy import ProviderCall, SniffingForward, SocatForward
from tools.drill.processes import PG, ManagedProcess, database_url
from tools.drill.stack import DrillStack

# A host whose link is cut inside a transaction leaves PostgreSQL waiting for its next
# statement with the rows locked, and the other host's claims of those rows wait with it.
# PostgreSQL notices a dead client only through TCP keepalives (2 h by default); this ends
# such a transaction in seconds. docs/drills.md ("Two hosts and a network cut") says why.
IDLE_IN_TRANSACTION_TIMEOUT_MS = 5000


@dataclass
class AppHost:
    network: HostNetwork
    proxies: list[SocatForward | SniffingForward] = field(default_factory=list)
    provider: SniffingForward | None = None  # the host's way to the simulator, with its log

    @property
    def label(self) -> str:
        return self.network.label

    def provider_calls(self) -> list[ProviderCall]:
        return list(self.provider.calls) if self.provider else []


@dataclass
class TwoHostStack(DrillStack):
    """DrillStack's database, broker node and simulator, and two hosts instead of loopback.
    Give it `rabbit=broker_with_heartbeat(seconds)`, so a cut host is dropped by the broker."""

    hosts: dict[str, AppHost] = field(default_factory=dict)

    def web_urls(self) -> list[str]:
        return [f"http://{host.network.host_ip}:{self.web_port}" for host in self.hosts.values()]

    def start(self) -> "TwoHostStack":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.rabbit.start()
        self._database_create()
        self._manage("migrate", "--no-input")
        self._manage("declare_topology")
        self.token = self._manage("create_api_token", "drill").strip()
        for index, label in enumerate(("a", "b"), start=1):
            self.hosts[label] = AppHost(network=HostNetwork.new(label, index))
            self.hosts[label].network.create()
            self._proxies_start(self.hosts[label])
        b_web = f"http://{self.hosts['b'].network.host_ip}:{self.web_port}"
        # The provider's webhooks go to host b's web (host a's is the one cut).
        self._start(
            "mailsim",
            ["tools/bin/mailsim"],
            ready=r"listening on",
            MAILSIM_WEBHOOK_URL_RESEND=f"{b_web}/webhooks/resend/",
            MAILSIM_WEBHOOK_URL_BREVO="",
            MAILSIM_WEBHOOK_URL_POSTMARK="",
        )
        for label, host in self.hosts.items():
            self._host_start(host, "web", ["bin/web"], ready=r"Booting worker")
            self._host_start(host, "relay", ["bin/relay"], ready=r"ready", RELAY_NAME=f"{label}-relay")
            self._host_start(host, "worker", ["bin/worker"], ready=r"ready", WORKER_NAME=f"{label}-worker")
        self._host_start(self.hosts["b"], "beat", ["bin/beat"], ready=r"beat: Starting|Scheduler")
        return self

    def stop(self, *, keep_database: bool = False) -> None:
        try:
            for host in self.hosts.values():  # its link back first, so its processes can stop
                host.network.restore()
        except Exception:
            pass
        try:
            super().stop(keep_database=keep_database)
        finally:
            for host in self.hosts.values():
                for proxy in host.proxies:
                    proxy.stop()
                host.network.destroy()

    @property
    def broker(self) -> PrivateRabbit:
        """The two-host drill's one RabbitMQ node (it runs on no cluster)."""
        assert isinstance(self.rabbit, PrivateRabbit)
        return self.rabbit

    def host_env(self, host: AppHost) -> dict[str, str]:
        root = host.network.root_ip
        options = quote(f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_TIMEOUT_MS}")
        return {
            "DATABASE_URL": f"{database_url(self.database, host=root)}?options={options}",
            "CELERY_BROKER_URL": f"amqp://guest:guest@{root}:{self.broker.port}//",
            "MAIL_PROVIDER_URL": f"http://{root}:{self.mailsim_port}",
            "WEB_BIND": host.network.host_ip,
            "DJANGO_ALLOWED_HOSTS": host.network.host_ip,  # the Host header of the load and webhooks
            # Said, not inferred: a host that is not this machine would make it production.
            "DJANGO_ENV": "development",
            "PROMETHEUS_MULTIPROC_DIR": str(self.workdir / f"prometheus-{host.label}"),
        }

    def _database_create(self) -> None:
        import psycopg

        with psycopg.connect(**PG, dbname="postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.database}"')

    def _proxies_start(self, host: AppHost) -> None:
        root = host.network.root_ip
        host.proxies.append(SocatForward(root, PG["port"], PG["port"]).start())
        host.proxies.append(SocatForward(root, self.broker.port, self.broker.port).start())
        host.provider = SniffingForward(root, self.mailsim_port, self.mailsim_port).start()
        host.proxies.append(host.provider)

    def _host_start(self, host: AppHost, role: str, command: list[str], *, ready: str, **env: str) -> None:
        name = f"{host.label}-{role}"
        process = ManagedProcess(
            name,
            [*host.network.exec_prefix(), *command],
            env={**self.env(), **self.host_env(host), **env},
            log_path=self.workdir / f"{name}.log",
        )
        self.processes[name] = process
        process.start(ready=ready, timeout=90)


def broker_with_heartbeat(seconds: int) -> PrivateRabbit:
    return PrivateRabbit(heartbeat_seconds=seconds)
