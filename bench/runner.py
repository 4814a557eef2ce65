"""`make bench`: the price of the guarantees, measured side by side in one run.

Phases, each on the benchmark's own database and vhost: the raw limits (broker confirms from
a minimal client, the PostgreSQL order + outbox transaction), the relay over a 20,000-event
backlog (ours, and the same relay waiting for each confirm), the consumers' drain, saturating
end-to-end throughput, commit → sent latency at fixed offered loads, and a memory soak.
Both pipelines run the same worker count against the same mail simulator.
"""

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from kombu import Connection

from bench.environment import BenchEnvironment
from bench.pipelines import Pipeline

OFFERED_LOADS = (25, 50, 100)
PHASES = ("raw", "relay", "drain", "saturation", "latency", "soak")


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def repeat(measure: Callable[[], float], times: int) -> dict:
    return spread([measure() for _ in range(times)])


class BenchRun:
    def __init__(
        self,
        workdir: Path,
        *,
        repeats: int = 3,
        load_seconds: float = 10,
        soak_seconds: float = 180,
        phases: tuple[str, ...] = PHASES,
        soak_rate: float | None = None,
    ):
        self.env = BenchEnvironment(workdir)
        self.repeats = repeats
        self.load_seconds = load_seconds
        self.soak_seconds = soak_seconds
        self.phases = phases
        self.soak_rate = soak_rate
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
        from bench import measure

        self.m = measure
        self.pipelines = (
            Pipeline("ours", measure.ours_place, measure.ours_wait_all_sent, measure.ours_completions),
            Pipeline("naive", measure.naive_place, measure.naive_wait_all_sent, measure.naive_completions),
        )
        steps = {
            "raw": self._raw_limits,
            "relay": self._relay,
            "drain": self._drain,
            "saturation": self._saturation,
            "latency": self._latency,
            "soak": self._soak,
        }
        try:
            for phase in self.phases:
                steps[phase]()
        finally:
            self.env.destroy()
        self.results["seconds"] = round(time.monotonic() - started, 1)
        self.results["machine"]["load_after"] = round(os.getloadavg()[0], 2)
        if self.phases == PHASES:
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
        rates: dict[str, list[float]] = {"ours": [], "naive": []}
        for _ in range(self.repeats):
            for pipeline in self.pipelines:
                pipeline.place(2000)  # queued, no worker yet
                self._start_worker(pipeline.name)
                rates[pipeline.name].append(self.m.drain_rate(pipeline.finished(2000)))
                self._stop_pipeline(pipeline.name)
                self.m.clear_orders()
        self.results["drain_ours_per_s"] = spread(rates["ours"])
        self.results["drain_naive_per_s"] = spread(rates["naive"])

    def _saturation(self) -> None:
        rates: dict[str, list[float]] = {"ours": [], "naive": []}
        for _ in range(self.repeats):
            for pipeline in self.pipelines:
                rates[pipeline.name].append(self._saturate(pipeline))
        self.results["saturating_ours_orders_per_s"] = spread(rates["ours"])
        self.results["saturating_naive_orders_per_s"] = spread(rates["naive"])

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

    def _latency(self) -> None:
        table: dict = {"ours": {}, "naive": {}}
        for pipeline in self.pipelines:
            self._start_pipeline(pipeline.name)
            for load in OFFERED_LOADS:
                runs = []
                for _ in range(self.repeats):
                    orders = int(load * self.load_seconds)
                    pipeline.place(orders, rate=load)
                    runs.append(self.m.latencies_ms(pipeline.finished(orders)))
                    self.m.clear_orders()
                quantiles = {q: spread([run[q] for run in runs]) for q in ("p50", "p95", "p99")}
                table[pipeline.name][load] = quantiles
            self._stop_pipeline(pipeline.name)
        self.results["latency_ms"] = table

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
        self.pipelines[0].finished(placed)  # ours
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

    def _start_worker(self, pipeline: str) -> None:
        if pipeline == "ours":
            self.env.start_our_worker()
        else:
            self.env.start_naive_worker()

    def _start_pipeline(self, pipeline: str) -> None:
        self._start_worker(pipeline)
        if pipeline == "ours":
            self.env.start_our_relay()

    def _stop_pipeline(self, pipeline: str) -> None:
        for name in ("worker", "relay", "beat") if pipeline == "ours" else ("naive",):
            self.env.stop(name)

    def _purge(self) -> None:
        with Connection(self.env.broker_url) as connection:
            channel = connection.channel()
            for queue in ("orders.confirmations", "orders.cancellations", "orders.analytics"):
                channel.queue_purge(queue)


def ratios(results: dict) -> dict:
    def median(key):
        return results[key]["median"]

    return {
        "relay_pipelined_over_waiting_each_confirm": median("relay_backlog_events_per_s")
        / median("relay_waiting_each_confirm_events_per_s"),
        "relay_over_raw_broker_confirms": median("relay_backlog_events_per_s")
        / median("raw_broker_confirms_msgs_per_s"),
        "saturating_ours_over_naive": median("saturating_ours_orders_per_s")
        / median("saturating_naive_orders_per_s"),
        "drain_ours_over_naive": median("drain_ours_per_s") / median("drain_naive_per_s"),
    }
