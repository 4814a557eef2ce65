"""The drill: the real stack under a stream of orders and a schedule of faults; then wait
until everything settles (bounded), and judge from the simulator's records and the database.

    from tools.drill.harness import DrillConfig, drill_run
    report = drill_run(DrillConfig(orders=300))
"""

import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import requests
from kombu import Connection

from messaging.broker.channel import amqp_channel, queue_counts
from tools.drill.broker_cluster import PrivateCluster
from tools.drill.broker_faults import (
    commit_delays_around_kills,
    failover_problems,
    orders_committed_after_kills,
)
from tools.drill.broker_node import PrivateRabbit
from tools.drill.chaos import Chaos
from tools.drill.consumers_back import consumers_back_after_kills
from tools.drill.database_drill import (
    DATABASE_FAULTS,
    PRODUCT_CLOCKS,
    database_cluster_for,
    database_judgement,
    fault_schedule,
)
from tools.drill.database_fence import fence_table_create
from tools.drill.delivery_verdict import delivery_settled, delivery_verdict
from tools.drill.load import GIVE_UP_AFTER_SECONDS, LoadResult, OrderStream, api_throttle_rate_for
from tools.drill.platform_load import SHOP, PlatformLoad, PlatformStream, drill_shop_secret
from tools.drill.platform_verdict import PlatformVerdict, platform_verdict
from tools.drill.report import DrillReport, load_summary, report_markdown, report_write
from tools.drill.stack import DrillStack
from tools.drill.verdict import Verdict, unfinished_counts, verdict_compute

WORK_QUEUES = (
    "orders.confirmations",
    "orders.cancellations",
    "orders.shipments",
    "orders.refunds",
    "orders.analytics",
    "notifications.provider_events",
)


@dataclass
class DrillConfig:
    orders: int = 300
    rate: float = 25.0  # orders per second offered
    workers: int = 2
    relays: int = 2
    kill_every: float = 4.0  # seconds between faults
    broker_restart_at: float | None = 0.4  # one node: share of the stream after which it is killed
    cluster: int = 1  # RabbitMQ nodes; more than one: a cluster whose nodes are killed instead
    leader_kill_at: float = 0.3  # a cluster: share of the stream after which the leader dies
    follower_kill_at: float = 0.65  # and then a follower (of orders.confirmations)
    settle_timeout: float = 240.0
    seed: int = 42
    api_throttle_rate: str | None = None  # None: sized for `rate` (tools.drill.load.api_throttle_rate_for)
    give_up_after: float = GIVE_UP_AFTER_SECONDS  # the load's deadline for one request
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. a deliberately broken build
    workdir: Path | None = None
    platform: bool = False  # the orders come from a Shopify shop's webhooks (platform_load.py)
    # "local": the machine's PostgreSQL; "patroni": a cluster of the drill's own, three nodes on
    # Patroni with a synchronous standby, whose primary fails (DATABASE_FAULTS);
    # "patroni-async": the same with asynchronous standbys, the counter-proof.
    database: str = "local"
    # (share of the orders placed, fault): the primary crashes, later the new one, and once the
    # primary's whole node freezes past Patroni's ttl (tools/drill/database_faults.py).
    database_faults_at: tuple[tuple[float, str], ...] = DATABASE_FAULTS

    @property
    def effective_api_throttle_rate(self) -> str:
        return self.api_throttle_rate or api_throttle_rate_for(self.rate)

    @property
    def database_cluster(self) -> bool:
        return self.database != "local"


def drill_outcome(*, verdict_passed: bool, settled: bool, load: LoadResult) -> str:
    """A loss, a duplicate or no settling is FAILED whatever else happened; a drill whose load
    did less than it was asked has not shown the guarantees at its size: INCOMPLETE."""
    if not (verdict_passed and settled):
        return "FAILED"
    return "PASSED" if load.complete else "INCOMPLETE"


def drill_run(config: DrillConfig) -> DrillReport:
    started = time.monotonic()
    database = f"orders_drill_{uuid.uuid4().hex[:8]}"
    stack = DrillStack(
        workdir=config.workdir or Path(tempfile.mkdtemp(prefix="drill-")),
        api_throttle_rate=config.effective_api_throttle_rate,
        workers=config.workers,
        relays=config.relays,
        extra_env=config.extra_env,
        rabbit=PrivateCluster(config.cluster) if config.cluster > 1 else PrivateRabbit(),
        database=database,
        product_clocks=PRODUCT_CLOCKS if config.database_cluster else (),
        database_cluster=database_cluster_for(config.database, database),
    )
    try:
        stack.start()
        if config.database_cluster:
            fence_table_create(stack.database_dsn)
        chaos, load = _load_under_chaos(stack, config)
        settle_started = time.monotonic()
        settled = wait_until_settled(stack, config.settle_timeout)
        seconds_to_settle = time.monotonic() - settle_started
        platform = None
        if isinstance(load, PlatformLoad):
            platform = platform_verdict(stack.database_dsn, load.plans)
        accepted = set(platform.our_order_ids.values()) if platform else set(load.accepted)
        verdict = verdict_compute(stack.database_dsn, stack.mailsim_url, accepted, invoices=True)
        if platform is not None:
            verdict.problems[:0] = platform.problems
        if not load.complete:
            verdict.problems.insert(0, load.shortfall())
        if not settled:
            verdict.problems.insert(0, f"did not settle within {config.settle_timeout:.0f} s")
        delivery = delivery_verdict(stack.database_dsn, stack.mailsim_url)
        commit_delays_around_kills(stack.database_dsn, chaos.log.broker_kills)
        orders_committed_after_kills(stack.database_dsn, chaos.log.broker_kills)
        consumers_back_after_kills(stack.workdir, chaos.log.broker_kills)
        verdict.problems[:0] = failover_problems(chaos.log.broker_kills)
        database_failovers, database_summary = database_judgement(stack, chaos.log.database_faults, load)
        verdict.problems[:0] = database_failovers
        passed = verdict.passed and delivery.passed and not failover_problems(chaos.log.broker_kills)
        passed = passed and not database_failovers
        passed = passed and (platform is None or platform.passed)
        outcome = drill_outcome(verdict_passed=passed, settled=settled, load=load)
        return DrillReport(
            config={k: v for k, v in asdict(config).items() if k != "workdir"}
            | {"api_throttle_rate": config.effective_api_throttle_rate},
            verdict=asdict(verdict) | {"problems": verdict.problems[:50]},
            passed=outcome == "PASSED",
            outcome=outcome,
            chaos=asdict(chaos.log),
            faults_injected=_faults_injected(stack.mailsim_url),
            load=load_summary(load),
            seconds_to_settle=round(seconds_to_settle, 1),
            seconds_total=round(time.monotonic() - started, 1),
            delivery=asdict(delivery),
            platform=_platform_summary(platform),
            database=database_summary,
        )
    finally:
        stack.stop()


def _load_under_chaos(stack: DrillStack, config: DrillConfig) -> tuple[Chaos, LoadResult]:
    stream_type = PlatformStream if config.platform else partial(OrderStream, token=stack.token)
    stream = stream_type(
        stack.web_url,
        orders=config.orders,
        rate=config.rate,
        seed=config.seed,
        give_up_after=config.give_up_after,
    )
    result = stream.load if isinstance(stream, PlatformStream) else stream.result
    chaos = Chaos(
        stack,
        seed=config.seed,
        kill_every=config.kill_every,
        broker_faults=broker_faults(config),
        database_faults=database_faults(config),
        orders_placed=lambda: len(result.accepted),
    )
    if config.platform:
        drill_shop_connect(stack)
    chaos.provider_faults_on()
    chaos.start()
    load = stream.run()
    chaos.stop()
    chaos.provider_faults_off()
    return chaos, load


def drill_shop_connect(stack: DrillStack) -> None:
    """The drill's Shopify shop, as a person adds it in the admin."""
    values = {**SHOP, "webhook_secret": drill_shop_secret(), "active": True}
    stack.manage(
        "shell",
        "--no-imports",
        "-c",
        f"from shops.models import Shop; values = {values!r}; Shop.objects.create(**values)",
    )


def _platform_summary(platform: PlatformVerdict | None) -> dict:
    if platform is None:
        return {}
    summary = asdict(platform)
    del summary["our_order_ids"]
    summary["problems"] = summary["problems"][:50]
    return summary


def broker_faults(config: DrillConfig) -> list[tuple[float, str]]:
    """When (seconds into the stream) which broker fault happens (tools/drill/broker_faults.py).
    A database drill leaves its one node alone: the failovers measured are the database's."""
    stream_seconds = config.orders / config.rate
    if config.cluster > 1:
        return [
            (stream_seconds * config.leader_kill_at, "leader"),
            (stream_seconds * config.follower_kill_at, "follower"),
        ]
    if config.broker_restart_at is None or config.database_cluster:
        return []
    return [(stream_seconds * config.broker_restart_at, "restart")]


def database_faults(config: DrillConfig) -> list[tuple[int, str]]:
    """After how many orders placed which fault falls on the database's primary."""
    return fault_schedule(config.database, config.orders, config.database_faults_at)


def wait_until_settled(stack: DrillStack, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _settled(stack):
            return True
        time.sleep(2)
    return False


def _settled(stack: DrillStack) -> bool:
    unfinished, unpublished = unfinished_counts(stack.database_dsn)
    if unfinished or unpublished or not delivery_settled(stack.database_dsn, stack.mailsim_url):
        return False
    with Connection(stack.rabbit.url, connect_timeout=5) as connection:
        channel = amqp_channel(connection)
        # ready messages only: a message a worker holds unacked counts as not settled below
        depths = [queue_counts(channel, name) for name in WORK_QUEUES]
    return all(ready == 0 for ready, _ in depths)


def _faults_injected(mailsim_url: str) -> dict:
    requests_log = requests.get(f"{mailsim_url}/_sim/requests", timeout=30).json()["requests"]
    counts: dict[str, int] = {}
    for entry in requests_log:
        if entry.get("fault"):
            counts[entry["fault"]] = counts.get(entry["fault"], 0) + 1
    return counts


__all__ = [
    "DrillConfig",
    "DrillReport",
    "Verdict",
    "drill_outcome",
    "drill_run",
    "report_markdown",
    "report_write",
    "wait_until_settled",
]
