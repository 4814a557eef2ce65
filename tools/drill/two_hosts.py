"""The two-host drill (`python -m tools.drill --hosts 2`, `make drill HOSTS=2`): orders through
both hosts' web processes while host a's link is cut in the middle of the stream for longer
than the lease, then back. Judged like the fault drill (tools/drill/verdict.py: nothing lost,
nothing doubled, everything final) and by tools/drill/takeover.py (host b took over host a's
emails only after their leases ran out; host a sent nothing twice once it was back).

    from tools.drill.two_hosts import TwoHostConfig, two_host_run
    report = two_host_run(TwoHostConfig(orders=120))
"""

import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import requests

from tools.drill.delivery_verdict import delivery_verdict
from tools.drill.harness import drill_outcome, wait_until_settled
from tools.drill.hosts import AppHost, TwoHostStack, broker_with_heartbeat
from tools.drill.load import LoadResult, OrderStream, api_throttle_rate_for
from tools.drill.report import load_summary
from tools.drill.takeover import Attempt, TakeoverVerdict, takeover_judge
from tools.drill.two_hosts_report import TwoHostReport
from tools.drill.verdict import verdict_compute

# Every provider call answers after a second (the message stored at once, the answer late;
# under the drill's 2 s read timeout), so a host always has calls open when its link goes.
PROVIDER_LATENCY = {"kind": "stall", "rate": 1.0, "seconds": 1.0}
OPEN_CALL_WINDOW_SECONDS = 0.3  # a call this recent is still waiting for its answer
CUT_PAST_LEASE_SECONDS = 15.0  # the link stays down this long after host a's leases run out


@dataclass
class TwoHostConfig:
    orders: int = 600
    rate: float = 10.0  # orders per second, spread over both hosts' web processes
    cut_after: float = 0.2  # share of the stream after which host a's link goes down
    # The drill's clocks, in the order the product checks them (notifications/checks.py):
    # provider connect + read (1 + 2 s) < soft < hard time limit < lease.
    lease_seconds: int = 30
    task_soft_time_limit: int = 20
    task_time_limit: int = 25
    broker_heartbeat_seconds: int = 10
    cut_seconds: float | None = None  # None: the lease + CUT_PAST_LEASE_SECONDS: host b must take over
    settle_timeout: float = 240.0
    seed: int = 42
    workdir: Path | None = None

    @property
    def effective_cut_seconds(self) -> float:
        if self.cut_seconds is not None:
            return self.cut_seconds
        return self.lease_seconds + CUT_PAST_LEASE_SECONDS

    def env(self) -> dict[str, str]:
        return {
            "NOTIFICATION_LEASE_SECONDS": str(self.lease_seconds),
            "TASK_SOFT_TIME_LIMIT_SECONDS": str(self.task_soft_time_limit),
            "TASK_TIME_LIMIT_SECONDS": str(self.task_time_limit),
            "WEB_CONCURRENCY": "2",
        }


class TwoWebStream(OrderStream):
    """The drill's careful client behind a load balancer: requests take turns between the
    hosts, and one that gets no answer from a host goes to the other (its Idempotency-Key
    makes the second try safe)."""

    def __init__(self, web_urls: list[str], token: str, **kwargs: Any):
        super().__init__(web_urls[0], token, **kwargs)
        self.web_urls = web_urls
        self.failovers = 0  # requests that got no answer from one host and went to the other
        self._turn = 0

    def _send(self, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        self._turn += 1
        for offset in range(len(self.web_urls)):
            url = self.web_urls[(self._turn + offset) % len(self.web_urls)]
            try:
                return self.session.request(method, url + path, timeout=(1, 10), **kwargs)
            except requests.RequestException:
                self.failovers += 1
                continue
        return None


@dataclass
class CutLog:
    started_at: float | None = None  # epoch seconds
    ended_at: float | None = None


def _cut_later(stack: TwoHostStack, config: TwoHostConfig, log: CutLog, halt: threading.Event) -> None:
    if halt.wait(config.orders / config.rate * config.cut_after):
        return
    host = stack.hosts["a"]
    _wait_for_an_open_call(host, halt)
    host.network.cut()
    log.started_at = time.time()
    try:
        halt.wait(config.effective_cut_seconds)  # an interrupted drill restores at once
    finally:
        log.ended_at = time.time()
        host.network.restore()


def _wait_for_an_open_call(host: AppHost, halt: threading.Event, longest: float = 15.0) -> None:
    """Until one of the host's provider calls went out a moment ago (its answer takes a
    second, PROVIDER_LATENCY), so the cut finds it open; at most `longest` seconds."""
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline and not halt.is_set():
        calls = host.provider_calls()
        if calls and time.time() - calls[-1].at < OPEN_CALL_WINDOW_SECONDS:
            return
        time.sleep(0.02)


def two_host_run(config: TwoHostConfig) -> TwoHostReport:
    started = time.monotonic()
    stack = TwoHostStack(
        workdir=config.workdir or Path(tempfile.mkdtemp(prefix="drill-two-hosts-")),
        api_throttle_rate=api_throttle_rate_for(config.rate),
        extra_env=config.env(),
        rabbit=broker_with_heartbeat(config.broker_heartbeat_seconds),
    )
    halt, cut = threading.Event(), CutLog()
    cutter = threading.Thread(target=_cut_later, args=(stack, config, cut, halt), daemon=True)
    try:
        stack.start()
        requests.post(
            f"{stack.mailsim_url}/_sim/faults", json={"rules": [PROVIDER_LATENCY], "seed": 7}, timeout=5
        ).raise_for_status()
        cutter.start()
        stream = TwoWebStream(
            stack.web_urls(), stack.token, orders=config.orders, rate=config.rate, seed=config.seed
        )
        load = stream.run()
        cutter.join(timeout=config.effective_cut_seconds + config.orders / config.rate + 30)
        settle_started = time.monotonic()
        settled = wait_until_settled(stack, config.settle_timeout)
        report = _judge(stack, config, cut, load, settled=settled)
        report.load["requests_failed_over"] = stream.failovers
        report.seconds_to_settle = round(time.monotonic() - settle_started, 1)
        report.seconds_total = round(time.monotonic() - started, 1)
        return report
    finally:
        halt.set()
        if cutter.is_alive():
            cutter.join(timeout=10)
        stack.stop()


def _judge(
    stack: TwoHostStack, config: TwoHostConfig, cut: CutLog, load: LoadResult, *, settled: bool
) -> TwoHostReport:
    verdict = verdict_compute(stack.database_dsn, stack.mailsim_url, set(load.accepted))
    if not load.complete:
        verdict.problems.insert(0, load.shortfall())
    if not settled:
        verdict.problems.insert(0, f"did not settle within {config.settle_timeout:.0f} s")
    if cut.started_at is None or cut.ended_at is None:
        verdict.problems.insert(0, "the cut did not happen")
    takeover = _takeover(stack, config, cut)
    delivery = delivery_verdict(stack.database_dsn, stack.mailsim_url)
    passed = verdict.passed and delivery.passed and takeover.passed and cut.ended_at is not None
    return TwoHostReport(
        config=asdict(config) | {"workdir": None, "cut_seconds": config.effective_cut_seconds},
        outcome=drill_outcome(verdict_passed=passed, settled=settled, load=load),
        verdict=asdict(verdict) | {"problems": verdict.problems[:50]},
        takeover=asdict(takeover),
        delivery=asdict(delivery),
        load=load_summary(load),
        cut={"started_at": _iso(cut.started_at), "ended_at": _iso(cut.ended_at)},
        hosts={
            label: {"address": host.network.host_ip, "hostname": host.network.hostname}
            for label, host in stack.hosts.items()
        },
        seconds_to_settle=0.0,
        seconds_total=0.0,
    )


def _takeover(stack: TwoHostStack, config: TwoHostConfig, cut: CutLog) -> TakeoverVerdict:
    if cut.started_at is None or cut.ended_at is None:
        return TakeoverVerdict(problems=["the cut did not happen"])
    with psycopg.connect(stack.database_dsn) as connection:
        rows = connection.execute(
            "SELECT notification_id, number, worker, extract(epoch FROM started_at)::float8, "
            "extract(epoch FROM finished_at)::float8 FROM notifications_deliveryattempt"
        ).fetchall()
    attempts = [
        Attempt(notification_id=n, number=number, host=worker[:1], started_at=start, finished_at=end)
        for n, number, worker, start, end in rows
    ]
    messages = requests.get(f"{stack.mailsim_url}/_sim/messages", timeout=30).json()["messages"]
    accepted = [(_epoch(m["accepted_at"]), m["idempotency_key"]) for m in messages]
    a_calls = [(call.at, call.idempotency_key) for call in stack.hosts["a"].provider_calls()]
    return takeover_judge(
        attempts,
        cut_start=cut.started_at,
        cut_end=cut.ended_at,
        lease_seconds=config.lease_seconds,
        a_calls=a_calls,
        accepted=accepted,
    )


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch).astimezone().isoformat(timespec="seconds")
