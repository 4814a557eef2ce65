"""`make bench`: the price of the guarantees, measured side by side in one run.

Phases, each on the benchmark's own database and vhost: the raw limits (broker confirms from
a minimal client, the PostgreSQL order + outbox transaction), here; the relay over a
20,000-event backlog, the consumers' drain, saturating end-to-end throughput and ours at 1, 2
and 4 worker processes and 1 and 2 relay processes (tools/bench/throughput_phases.py);
commit → sent latency at fixed offered loads, also while a process of the bench keeps a core
busy, the stages of commit → sent of both pipelines, and the CPU per order of each component
(tools/bench/latency_phases.py); what an invoice costs per order, ours' orders with lines paid
at placing without and with their invoice (tools/bench/invoice_phase.py); a shop platform's
deliveries through the web process while ours sends their emails, ours beside the retention
job, and a memory soak (tools/bench/side_load_phases.py). The drain and saturation phases
compare ours with the naive pipeline and with the naive pipeline tuned (connections kept, its
fastest prefetch multiplier); all run the same worker count (2 processes) against the same
mail simulator.
"""

import os
import time
from pathlib import Path

from kombu import Connection

from messaging.broker.channel import amqp_channel
from tools.bench import raw_limits
from tools.bench.environment import BenchEnvironment
from tools.bench.invoice_load import INVOICE_ORDERS
from tools.bench.invoice_phase import InvoicePhases
from tools.bench.latency_phases import CPU_ORDERS
from tools.bench.phases import repeat
from tools.bench.pipelines import Pipeline
from tools.bench.side_load_phases import SideLoadPhases
from tools.bench.targets import ratios
from tools.bench.throughput_phases import DRAIN_ORDERS, PREFETCH_MULTIPLIERS, SCALING_ORDERS, ThroughputPhases

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
    "invoice",
    "intake",
    "retention",
    "soak",
)
# Given here so `python -m tools.bench` finds every default in one place.
__all__ = [
    "CPU_ORDERS",
    "DRAIN_ORDERS",
    "INVOICE_ORDERS",
    "PHASES",
    "PREFETCH_MULTIPLIERS",
    "SCALING_ORDERS",
    "BenchRun",
]


class BenchRun(ThroughputPhases, InvoicePhases, SideLoadPhases):
    """One run of the phases asked for, on the bench's own database, vhost and processes."""

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
        invoice_orders: int = INVOICE_ORDERS,
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
        self.invoice_orders = invoice_orders
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
            "invoice": self._invoice,
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
        self.results["raw_broker_confirms_msgs_per_s"] = repeat(
            lambda: raw_limits.raw_publish_with_pipelined_confirms("127.0.0.1", self.env.vhost), self.repeats
        )
        self.results["raw_pg_order_outbox_tx_per_s"] = repeat(
            lambda: raw_limits.raw_order_and_outbox_transactions(self.env.database_url), self.repeats
        )

    def _start_worker(self, pipeline: str, *, prefetch_multiplier: int | None = None) -> None:
        if pipeline == "ours":
            self.env.start_our_worker()
        elif pipeline == "naive":
            self.env.start_naive_worker()
        else:
            self.env.start_tuned_naive_worker(
                prefetch_multiplier=prefetch_multiplier or self._tuned_naive_prefetch()
            )

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
