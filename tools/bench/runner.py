"""`make bench`: the price of the guarantees, measured side by side in one run.

Phases, each on the benchmark's own database and vhost: the raw limits (broker confirms from
a minimal client, the PostgreSQL order + outbox transaction), the relay over a 20,000-event
backlog (ours, and the same relay waiting for each confirm), the consumers' drain, saturating
end-to-end throughput, ours at 1, 2 and 4 worker processes and 1 and 2 relay processes,
commit → sent latency at fixed offered loads (tools/bench/latency_phases.py: also while a
process of the bench keeps a core busy, the stages of commit → sent of both pipelines, and
the CPU per order of each component), a shop platform's deliveries through the web process
while ours sends their emails (the answer's time), and a memory soak. The drain and saturation
phases compare ours with the naive pipeline and with the naive pipeline tuned (connections
kept, its fastest prefetch multiplier); all run the same worker count (2 processes) against
the same mail simulator.
"""

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from kombu import Connection

from messaging.broker.channel import amqp_channel
from tools.bench.cpu import cpu_by_component
from tools.bench.environment import (
    CONNECTIONS_NEVER_CLOSED,
    RELAY_INTERVAL_SECONDS,
    WORKER_PROCESSES,
    BenchEnvironment,
)
from tools.bench.latency_phases import CPU_ORDERS, CPU_WARM_UP_ORDERS, LatencyPhases, spread
from tools.bench.pipelines import LoadShortfall, Pipeline
from tools.bench.targets import ratios
from tools.drill.processes import free_port

PHASES = (
    "raw",
    "relay",
    "drain",
    "saturation",
    "scaling",
    "latency",
    "contended",
    "stages",
    "cpu",
    "intake",
    "retention",
    "soak",
)
DRAIN_ORDERS = 2000
# Tuned naive's candidates, Celery's default (4) among them. Each is measured in the run
# itself: which one drains fastest depends on the machine and its load. On 2 busy shared
# cores, 2026-12-01, two drains of 2,000 orders at each gave 1 → 66 and 94, 4 → 96 and 42,
# 16 → 57 and 86, 64 → 120 and 95 orders/s, and a drain of 1,000 later 58, 55, 50 and 46: a
# spread wider than the differences, so a figure fixed here would be one noisy draw.
PREFETCH_MULTIPLIERS = (1, 4, 16, 64)
SCALING_WORKER_PROCESSES = (1, 2, 4)
SCALING_RELAY_PROCESSES = (1, 2)
# Per configuration of the scaling phase: placed in a few seconds, worked off in 15 to 25 s
# by one worker process, so six configurations stay a few minutes of the run.
SCALING_ORDERS = 600
SCALING_WARM_UP_ORDERS_PER_PROCESS = 10


def repeat(measure: Callable[[], float], times: int) -> dict:
    return spread([measure() for _ in range(times)])


class BenchRun(LatencyPhases):
    def __init__(
        self,
        workdir: Path,
        *,
        repeats: int = 3,
        load_seconds: float = 10,
        soak_seconds: float = 180,
        phases: tuple[str, ...] = PHASES,
        soak_rate: float | None = None,
        drain_orders: int = DRAIN_ORDERS,
        scaling_orders: int = SCALING_ORDERS,
        tuned_prefetch: int | None = None,
        cpu_orders: int = CPU_ORDERS,
    ):
        self.env = BenchEnvironment(workdir)
        self.repeats = repeats
        self.load_seconds = load_seconds
        self.soak_seconds = soak_seconds
        self.phases = phases
        self.soak_rate = soak_rate
        self.drain_orders = drain_orders
        self.scaling_orders = scaling_orders
        self.tuned_prefetch = tuned_prefetch  # None: the fastest drain of PREFETCH_MULTIPLIERS
        self.cpu_orders = cpu_orders
        self.results: dict = {}

    def run(self) -> dict:
        started = time.monotonic()
        self.results["machine"] = {
            "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "cpus": os.cpu_count(),
            "load_before": round(os.getloadavg()[0], 2),
        }
        self.env.create()
        import django

        django.setup()
        from tools.bench import measure

        self.m = measure
        self.ours = Pipeline("ours", measure.ours_place, measure.ours_wait_all_sent, measure.ours_completions)
        naive = (measure.naive_place, measure.naive_wait_all_sent, measure.naive_completions)
        self.naive = Pipeline("naive", *naive)
        self.tuned_naive = Pipeline("tuned_naive", *naive)  # the same orders and task, another worker
        self.pipelines = (self.ours, self.naive)  # latency and soak
        self.compared = (self.ours, self.naive, self.tuned_naive)  # drain and saturation
        steps = {
            "raw": self._raw_limits,
            "relay": self._relay,
            "drain": self._drain,
            "saturation": self._saturation,
            "scaling": self._scaling,
            "latency": self._latency,
            "contended": self._contended,
            "stages": self._stages,
            "cpu": self._cpu,
            "intake": self._intake,
            "retention": self._retention,
            "soak": self._soak,
        }
        try:
            for phase in self.phases:
                steps[phase]()
        finally:
            self.env.destroy()
        self.results["seconds"] = round(time.monotonic() - started, 1)
        self.results["machine"]["load_after"] = round(os.getloadavg()[0], 2)
        self.results["ratios"] = ratios(self.results)
        return self.results

    def _raw_limits(self) -> None:
        m = self.m
        self.results["raw_broker_confirms_msgs_per_s"] = repeat(
            lambda: m.raw_publish_with_pipelined_confirms("127.0.0.1", self.env.vhost), self.repeats
        )
        self.results["raw_pg_order_outbox_tx_per_s"] = repeat(
            lambda: m.raw_order_and_outbox_transactions(self.env.database_url), self.repeats
        )

    def _relay(self) -> None:
        m = self.m
        pipelined, per_confirm = [], []
        for _ in range(self.repeats):
            m.clear_orders()
            m.backlog_create(20_000)
            pipelined.append(m.relay_drain_pipelined())
            self._purge()
            m.backlog_reset()
            per_confirm.append(m.relay_drain_waiting_for_each_confirm())
            self._purge()
        m.clear_orders()
        self.results["relay_backlog_events_per_s"] = spread(pipelined)
        self.results["relay_waiting_each_confirm_events_per_s"] = spread(per_confirm)

    def _drain(self) -> None:
        self._tuned_naive_prefetch()  # its own drains come first, not between the phase's
        rates: dict[str, list[float]] = {pipeline.name: [] for pipeline in self.compared}
        for _ in range(self.repeats):
            for pipeline in self.compared:
                rates[pipeline.name].append(self._drain_once(pipeline, self.drain_orders))
        for name, runs in rates.items():
            self.results[f"drain_{name}_per_s"] = spread(runs)

    def _drain_once(
        self, pipeline: Pipeline, orders: int, *, prefetch_multiplier: int | None = None
    ) -> float:
        pipeline.place(orders)  # queued, no worker yet
        self._start_worker(pipeline.name, prefetch_multiplier=prefetch_multiplier)
        rate = self.m.drain_rate(pipeline.finished(orders))
        self._stop_pipeline(pipeline.name)
        self.m.clear_orders()
        return rate

    def _tuned_naive_prefetch(self) -> int:
        """Tuned naive's prefetch multiplier: the given one, or the one of PREFETCH_MULTIPLIERS
        at which it drains a backlog fastest, measured once per run on the run's own machine."""
        if "tuned_naive" not in self.results:
            tuned: dict = {
                "worker_processes": WORKER_PROCESSES,
                "celery_db_reuse_max": int(CONNECTIONS_NEVER_CLOSED),
            }
            if self.tuned_prefetch is None:
                tuned |= self._prefetch_sweep()
            else:
                tuned |= {"prefetch_multiplier": self.tuned_prefetch, "chosen_by": "given"}
            self.results["tuned_naive"] = tuned
        return self.results["tuned_naive"]["prefetch_multiplier"]

    def _prefetch_sweep(self) -> dict:
        """Tuned naive's drain at each of PREFETCH_MULTIPLIERS, `repeats` times; the fastest
        median is the choice."""
        # Half the drain phase's backlog: four multipliers times `repeats` drains stay short.
        orders = max(2, self.drain_orders // 2)
        rates: dict[int, list[float]] = {multiplier: [] for multiplier in PREFETCH_MULTIPLIERS}
        for _ in range(self.repeats):
            for multiplier in PREFETCH_MULTIPLIERS:  # in turn, so a busy minute hits them alike
                drained = self._drain_once(self.tuned_naive, orders, prefetch_multiplier=multiplier)
                rates[multiplier].append(drained)
        medians = {multiplier: statistics.median(runs) for multiplier, runs in rates.items()}
        return {
            "prefetch_multiplier": max(medians, key=medians.__getitem__),
            "chosen_by": "fastest drain",
            "orders_per_drain": orders,
            "drain_per_s_by_prefetch": [
                {"prefetch_multiplier": multiplier, "drain_per_s": spread(runs)}
                for multiplier, runs in rates.items()
            ],
        }

    def _saturation(self) -> None:
        self._tuned_naive_prefetch()
        rates: dict[str, list[float]] = {pipeline.name: [] for pipeline in self.compared}
        for _ in range(self.repeats):
            for pipeline in self.compared:
                rates[pipeline.name].append(self._saturate(pipeline))
        for name, runs in rates.items():
            self.results[f"saturating_{name}_orders_per_s"] = spread(runs)

    def _saturate(self, pipeline: Pipeline) -> float:
        self._start_pipeline(pipeline.name)
        deadline = time.monotonic() + self.load_seconds
        placed = 0
        while time.monotonic() < deadline:
            pipeline.place(100)
            placed += 100
        rate = self.m.throughput(pipeline.finished(placed))
        self._stop_pipeline(pipeline.name)
        self.m.clear_orders()
        return rate

    def _scaling(self) -> None:
        """Ours end to end at each count of worker and relay processes: `scaling_orders` placed
        as fast as one process can, their events published by the relay processes alone."""
        runs: dict[tuple[int, int], list[float]] = {
            (workers, relays): []
            for workers in SCALING_WORKER_PROCESSES
            for relays in SCALING_RELAY_PROCESSES
        }
        for _ in range(self.repeats):
            for workers in SCALING_WORKER_PROCESSES:
                self.env.start_our_worker(processes=workers)
                self._scaling_warm_up(workers)
                for relays in SCALING_RELAY_PROCESSES:  # ascending: the next adds relay processes
                    names = self.env.start_relay_commands(relays)
                    self.m.ours_place_for_the_relay(self.scaling_orders)
                    completions = self.ours.finished(self.scaling_orders)
                    runs[(workers, relays)].append(self.m.throughput(completions))
                    self.m.clear_orders()
                for name in ("worker", *names):
                    self.env.stop(name)
        self.results["scaling"] = {
            "orders_per_run": self.scaling_orders,
            "relay_interval_seconds": RELAY_INTERVAL_SECONDS,
            "configurations": [
                {
                    "worker_processes": workers,
                    "relay_processes": relays,
                    "orders_per_s": spread(rates),
                    "orders_per_s_per_worker_process": statistics.median(rates) / workers,
                }
                for (workers, relays), rates in runs.items()
            ],
        }

    def _scaling_warm_up(self, workers: int) -> None:
        """A few orders through a new worker before its measured runs: otherwise its first
        configuration alone would pay for the pool processes' first tasks (imports, templates,
        connections), and the relay counts would not be compared on the same footing."""
        self.env.start_relay_commands(1)
        orders = SCALING_WARM_UP_ORDERS_PER_PROCESS * workers
        self.m.ours_place_for_the_relay(orders)
        self.ours.finished(orders)
        self.m.clear_orders()

    def _soak(self) -> None:
        m = self.m
        # Half the saturating rate; a soak run on its own is given its rate.
        rate = self.soak_rate or self.results["saturating_ours_orders_per_s"]["median"] / 2
        self._start_pipeline("ours")
        samples: dict[str, list[int]] = {"worker": [], "relay": []}
        started = time.monotonic()
        placed = 0
        while time.monotonic() - started < self.soak_seconds:
            target = int((time.monotonic() - started) * rate)
            m.ours_place(max(0, target - placed))
            placed = max(placed, target)
            if len(samples["worker"]) < (time.monotonic() - started) / 5:
                for name in samples:
                    samples[name].append(m.resident_memory_kib(self.env.processes[name].pid))
            time.sleep(0.05)
        self.ours.finished(placed)
        self._stop_pipeline("ours")
        m.clear_orders()
        window = max(1, len(samples["worker"]) // 5)
        self.results["soak"] = {
            "seconds": self.soak_seconds,
            "orders_per_s": round(rate, 1),
            "orders": placed,
            **{
                f"{name}_rss_growth": (statistics.mean(s[-window:]) - statistics.mean(s[:window]))
                / statistics.mean(s[:window])
                for name, s in samples.items()
            },
            "samples_kib": samples,
        }

    def _start_worker(self, pipeline: str, *, prefetch_multiplier: int | None = None) -> None:
        if pipeline == "ours":
            self.env.start_our_worker()
        elif pipeline == "naive":
            self.env.start_naive_worker()
        else:
            self.env.start_tuned_naive_worker(
                prefetch_multiplier=prefetch_multiplier or self._tuned_naive_prefetch()
            )

    def _intake(self) -> None:
        """Shop platforms' deliveries through the real web process while ours sends their
        emails: the answer's time per delivery at each load (tools/bench/intake.py)."""
        from tools.bench import intake

        secret = intake.intake_shop_create()
        port = free_port()
        self.env.start(
            "web",
            ["bin/web"],
            ready=r"Booting worker",
            WEB_PORT=str(port),
            PROMETHEUS_MULTIPROC_DIR=str(self.env.workdir / "prometheus-web"),
        )
        self._start_pipeline("ours")
        table: dict = {}
        # Not measured: the web workers' first requests (imports, connections, templates).
        warm_up = intake.intake_load(
            f"http://127.0.0.1:{port}", secret, rate=10, seconds=intake.WARM_UP_SECONDS, first_number=1
        )
        first_number = 1 + warm_up["deliveries"]
        self.ours.wait_all_sent()
        intake.intake_clear()
        self.m.clear_orders()
        for load in intake.INTAKE_LOADS:
            runs = []
            for _ in range(self.repeats):
                groups = {name: process.pid for name, process in self.env.processes.items()}
                before = cpu_by_component(groups)
                run = intake.intake_load(
                    f"http://127.0.0.1:{port}",
                    secret,
                    rate=load,
                    seconds=self.load_seconds,
                    first_number=first_number,
                )
                first_number += run["deliveries"]
                self.ours.wait_all_sent()
                run["cpu"] = intake.intake_cpu(before, cpu_by_component(groups), run["deliveries"])
                intake.intake_orders_check(run["deliveries"] - run["duplicates"])
                intake.intake_clear()
                self.m.clear_orders()
                runs.append(run)
            table[load] = {q: spread([run[q] for run in runs]) for q in ("p50", "p95", "p99", "posted_per_s")}
            table[load]["slowest"] = [run["slowest"] for run in runs]
            table[load]["cpu_ms_per_delivery"] = [run["cpu"] for run in runs]
        self._stop_pipeline("ours")
        web_workers = self.env.processes["web"].log_text().count("Booting worker")  # bin/web's default
        self.env.stop("web")
        self.results["intake_ms"] = {
            "loads": table,
            "retry_every": intake.RETRY_EVERY,
            "web_workers": web_workers,
        }

    def _retention(self) -> None:
        """Ours' latency over a backlog of personal data, left alone and while the retention job
        clears it, in turn (tools/bench/retention_load.py)."""
        from tools.bench import retention_load as backlog

        self._start_pipeline("ours")
        self.m.ours_place(CPU_WARM_UP_ORDERS)
        self.ours.wait_all_sent()
        self.m.clear_orders()
        runs: dict[str, list] = {"alone": [], "beside": [], "cleared_during_load": [], "job": []}
        for _ in range(self.repeats):
            backlog.backlog_create()
            runs["alone"].append(
                backlog.latency_over_load(
                    self.m.ours_place, self.ours.wait_all_sent, seconds=self.load_seconds
                )
            )
            job = backlog.retention_process_start(self.env.env(LOG_LEVEL="WARNING"))
            left = backlog.retention_process_clearing(job, backlog.backlog_snapshots_left())
            runs["beside"].append(
                backlog.latency_over_load(
                    self.m.ours_place, self.ours.wait_all_sent, seconds=self.load_seconds
                )
            )
            runs["cleared_during_load"].append(left - backlog.backlog_snapshots_left())
            runs["job"].append(backlog.retention_process_stop(job))
            self.m.clear_orders()
            if runs["cleared_during_load"][-1] <= 0:
                raise LoadShortfall("retention: the job cleared nothing while the load ran")
        self._stop_pipeline("ours")
        self.results["retention"] = {
            "backlog_orders": backlog.BACKLOG_ORDERS,
            "rate": backlog.RATE,
            **{
                name: {q: spread([run[q] for run in runs[name]]) for q in ("p50", "p95", "p99")}
                for name in ("alone", "beside")
            },
            "cleared_during_load": runs["cleared_during_load"],
            "job": runs["job"],
        }

    def _start_pipeline(self, pipeline: str) -> None:
        self._start_worker(pipeline)
        if pipeline == "ours":
            self.env.start_our_relay()

    def _stop_pipeline(self, pipeline: str) -> None:
        for name in ("worker", "relay", "beat") if pipeline == "ours" else (pipeline,):
            self.env.stop(name)

    def _purge(self) -> None:
        with Connection(self.env.broker_url) as connection:
            channel = amqp_channel(connection)
            for queue in (
                "orders.confirmations",
                "orders.cancellations",
                "orders.shipments",
                "orders.analytics",
            ):
                channel.queue_purge(queue)
