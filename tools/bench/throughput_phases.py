"""The bench's throughput phases: the relay over a backlog, the consumers' drain of a queued
backlog, saturating end to end, and ours at several counts of worker and relay processes.
The drain and saturation compare ours with naive and with naive tuned (connections kept, its
fastest prefetch multiplier, measured in the run itself).

A mixin of BenchRun (tools/bench/runner.py)."""

import statistics
import time

from tools.bench.environment import CONNECTIONS_NEVER_CLOSED, RELAY_INTERVAL_SECONDS, WORKER_PROCESSES
from tools.bench.phases import BenchPhases, spread
from tools.bench.pipelines import Pipeline

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


class ThroughputPhases(BenchPhases):
    drain_orders: int
    scaling_orders: int
    tuned_prefetch: int | None

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
