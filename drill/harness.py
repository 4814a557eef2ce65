"""The drill: the real stack under a stream of orders and a schedule of faults; then wait
until everything settles (bounded), and judge from the simulator's records and the database.

    from drill.harness import DrillConfig, drill_run
    report = drill_run(DrillConfig(orders=300))
"""

import json
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psycopg
import requests
from kombu import Connection

from drill.chaos import Chaos
from drill.load import GIVE_UP_AFTER_SECONDS, OrderStream, api_throttle_rate_for
from drill.stack import DrillStack
from drill.verdict import FINAL, Verdict, verdict_compute

WORK_QUEUES = ("orders.confirmations", "orders.cancellations", "orders.analytics")


@dataclass
class DrillConfig:
    orders: int = 300
    rate: float = 25.0  # orders per second offered
    workers: int = 2
    relays: int = 2
    kill_every: float = 4.0  # seconds between faults
    broker_restart_at: float | None = 0.4  # share of the stream after which RabbitMQ restarts once
    settle_timeout: float = 240.0
    seed: int = 42
    api_throttle_rate: str | None = None  # None: sized for `rate` (drill.load.api_throttle_rate_for)
    give_up_after: float = GIVE_UP_AFTER_SECONDS  # the load's deadline for one request
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. a deliberately broken build
    workdir: Path | None = None

    @property
    def effective_api_throttle_rate(self) -> str:
        return self.api_throttle_rate or api_throttle_rate_for(self.rate)


@dataclass
class DrillReport:
    config: dict
    verdict: dict
    passed: bool
    chaos: dict
    faults_injected: dict
    load: dict
    seconds_to_settle: float
    seconds_total: float


def drill_run(config: DrillConfig) -> DrillReport:
    started = time.monotonic()
    workdir = config.workdir or Path(tempfile.mkdtemp(prefix="drill-"))
    stack = DrillStack(
        workdir=workdir,
        api_throttle_rate=config.effective_api_throttle_rate,
        workers=config.workers,
        relays=config.relays,
        extra_env=config.extra_env,
    )
    try:
        stack.start()
        chaos = Chaos(
            stack,
            seed=config.seed,
            kill_every=config.kill_every,
            broker_restart_after=(
                None
                if config.broker_restart_at is None
                else config.orders / config.rate * config.broker_restart_at
            ),
        )
        chaos.provider_faults_on()
        chaos.start()
        load = OrderStream(
            stack.web_url,
            stack.token,
            orders=config.orders,
            rate=config.rate,
            seed=config.seed,
            give_up_after=config.give_up_after,
        ).run()
        chaos.stop()
        chaos.provider_faults_off()
        settle_started = time.monotonic()
        settled = _wait_until_settled(stack, config.settle_timeout)
        seconds_to_settle = time.monotonic() - settle_started
        verdict = verdict_compute(stack.database_dsn, stack.mailsim_url, set(load.accepted))
        if not settled:
            verdict.problems.insert(0, f"did not settle within {config.settle_timeout:.0f} s")
        return DrillReport(
            config={k: v for k, v in asdict(config).items() if k != "workdir"}
            | {"api_throttle_rate": config.effective_api_throttle_rate},
            verdict=asdict(verdict) | {"problems": verdict.problems[:50]},
            passed=verdict.passed and settled,
            chaos=asdict(chaos.log),
            faults_injected=_faults_injected(stack.mailsim_url),
            load={
                "orders_accepted": len(load.accepted),
                "paid": len(load.paid),
                "cancelled": len(load.cancelled),
                "requests_retried": load.retried_requests,
                "requests_throttled": load.throttled_requests,
                "requests_given_up": load.given_up_requests[:20],
            },
            seconds_to_settle=round(seconds_to_settle, 1),
            seconds_total=round(time.monotonic() - started, 1),
        )
    finally:
        stack.stop()


def _wait_until_settled(stack: DrillStack, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _settled(stack):
            return True
        time.sleep(2)
    return False


def _settled(stack: DrillStack) -> bool:
    with psycopg.connect(stack.database_dsn) as connection:
        unfinished = connection.execute(
            "SELECT count(*) FROM notifications_notification WHERE NOT (status = ANY(%s))", [list(FINAL)]
        ).fetchone()[0]
        unpublished = connection.execute(
            "SELECT count(*) FROM notifications_outboxevent WHERE published_at IS NULL"
        ).fetchone()[0]
    if unfinished or unpublished:
        return False
    with Connection(stack.rabbit.url, connect_timeout=5) as connection:
        channel = connection.channel()
        # ready messages only: a message a worker holds unacked counts as not settled below
        depths = [channel.queue_declare(queue=name, passive=True) for name in WORK_QUEUES]
    return all(ready == 0 for _, ready, _ in depths)


def _faults_injected(mailsim_url: str) -> dict:
    requests_log = requests.get(f"{mailsim_url}/_sim/requests", timeout=30).json()["requests"]
    counts: dict[str, int] = {}
    for entry in requests_log:
        if entry.get("fault"):
            counts[entry["fault"]] = counts.get(entry["fault"], 0) + 1
    return counts


def report_write(report: DrillReport, directory: Path, name: str = "latest") -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"drill-{name}.json"
    json_path.write_text(json.dumps(asdict(report), indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / f"drill-{name}.md"
    markdown_path.write_text(report_markdown(report))
    return json_path, markdown_path


def report_markdown(report: DrillReport) -> str:
    v, c = report.verdict, report.chaos
    faults = ", ".join(f"{kind} {n}" for kind, n in sorted(report.faults_injected.items())) or "none"
    rows = [
        ("verdict", "PASSED: 0 lost, 0 duplicates" if report.passed else "FAILED"),
        ("orders", v["orders"]),
        ("emails expected", v["emails_expected"]),
        ("emails accepted by the provider", v["emails_accepted"]),
        ("duplicates", v["duplicates"]),
        ("lost", v["lost"]),
        ("accepted but recorded as not sent", v["unexpected"]),
        ("unfinished notifications", v["unfinished"]),
        ("waiting for a person (failed / needs review)", v["parked"]),
        ("unpublished outbox events", v["unpublished_events"]),
        ("worker kills (SIGKILL)", c["worker_kills"]),
        ("relay kills (SIGKILL)", c["relay_kills"]),
        ("RabbitMQ restarts", c["broker_restarts"]),
        ("database connection drops", c["database_terminations"]),
        ("events published again (copies)", c["republished_copies"]),
        ("provider faults injected", faults),
        ("API throttle per token (API_THROTTLE_RATE)", report.config["api_throttle_rate"]),
        ("client requests retried", report.load["requests_retried"]),
        ("client requests throttled (429, waited out)", report.load["requests_throttled"]),
        ("time to settle after the stream", f"{report.seconds_to_settle} s"),
        ("whole drill", f"{report.seconds_total} s"),
    ]
    lines = ["| | |", "|---|---|", *(f"| {label} | {value} |" for label, value in rows)]
    if v["problems"]:
        lines += ["", "Problems:", *(f"- {problem}" for problem in v["problems"])]
    return "\n".join(lines) + "\n"


__all__ = ["DrillConfig", "DrillReport", "Verdict", "drill_run", "report_markdown", "report_write"]
