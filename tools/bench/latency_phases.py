"""The bench's phases at fixed offered loads, ours and naive in turn: commit → sent latency,
the same on a contended machine (a bench-owned process keeps a core busy), the stages of
commit → sent, and the CPU each component spends per order.

A mixin of BenchRun (tools/bench/runner.py): it drives the same pipelines and processes."""

from pathlib import Path

from tools.bench.cpu import cpu_by_component, cpu_ms_per_order
from tools.bench.cpu_hog import CpuHog
from tools.bench.phases import BenchPhases, spread
from tools.bench.pipelines import LoadShortfall, Pipeline, offered_check
from tools.bench.stages import STAGES_ORDERS, STAGES_RATES, naive_stages_ms, ours_stages_ms

OFFERED_LOADS = (25, 50, 100)
CONTENDED_LOADS = (50, 100)
# The hog is one spinning thread; the scheduler shares the cores between it and the
# pipelines' processes. Below half a core it did not contend as asked, and the phase fails
# instead of reporting a quiet machine as a busy one.
HOG_FLOOR_CORES = 0.5
CPU_ORDERS, CPU_RATE, CPU_WARM_UP_ORDERS = 1000, 50, 50
QUANTILES = ("p50", "p95", "p99", "placed_per_s")


class LatencyPhases(BenchPhases):
    cpu_orders: int

    def _latency(self) -> None:
        table: dict = {}
        for pipeline in self.pipelines:
            self._start_pipeline(pipeline.name)
            table[pipeline.name] = {load: self._latency_at(pipeline, load) for load in OFFERED_LOADS}
            self._stop_pipeline(pipeline.name)
        self.results["latency_ms"] = table

    def _latency_at(self, pipeline: Pipeline, load: int) -> dict:
        """`repeats` runs of `load` orders/s for `load_seconds`: the quantiles' spreads."""
        runs = []
        for _ in range(self.repeats):
            orders = int(load * self.load_seconds)
            pipeline.place(orders, rate=load)
            completions = pipeline.finished(orders)
            runs.append(
                {**self.m.latencies_ms(completions), "placed_per_s": self.m.placed_per_s(completions)}
            )
            self.m.clear_orders()
            offered_check(runs[-1]["placed_per_s"], offered=load, pipeline=pipeline.name)
        return {q: spread([run[q] for run in runs]) for q in QUANTILES}

    def _warm_up(self, pipeline: Pipeline) -> None:
        """A few orders through a newly started pipeline, not measured: its first tasks pay
        for imports, templates and connections, which a tail of its own would show."""
        pipeline.place(CPU_WARM_UP_ORDERS)
        pipeline.finished(CPU_WARM_UP_ORDERS)
        self.m.clear_orders()

    def _contended(self) -> None:
        """The latency phase at 50 and 100 orders/s while a process of the bench keeps one of
        the cores busy: a small or busy machine. The hog runs for one pipeline's loads at a
        time, and how much of a core it got is reported (and must be at least HOG_FLOOR_CORES)."""
        table: dict = {}
        hog_cores: dict[str, float] = {}
        for pipeline in self.pipelines:
            self._start_pipeline(pipeline.name)
            self._warm_up(pipeline)
            bound = len(CONTENDED_LOADS) * self.repeats * (self.load_seconds + 60) + 60
            hog = CpuHog(Path(self.env.workdir) / f"cpu-hog-{pipeline.name}.log", seconds=bound).start()
            try:
                table[pipeline.name] = {load: self._latency_at(pipeline, load) for load in CONTENDED_LOADS}
                if not hog.running():
                    raise LoadShortfall(f"contended, {pipeline.name}: the CPU hog ended before the load did")
                hog_cores[pipeline.name] = round(hog.cores(), 2)
            finally:
                hog.stop()
            self._stop_pipeline(pipeline.name)
            if hog_cores[pipeline.name] < HOG_FLOOR_CORES:
                raise LoadShortfall(
                    f"contended, {pipeline.name}: the CPU hog got {hog_cores[pipeline.name]:.2f} of a core,"
                    f" less than {HOG_FLOOR_CORES}: the machine was not contended as asked"
                )
        self.results["contended_latency_ms"] = {"loads": table, "hog_cores": hog_cores}

    def _stages(self) -> None:
        """Where commit → sent goes, ours and naive at each of STAGES_RATES: p50 and p99 of
        each step over STAGES_ORDERS orders (tools/bench/stages.py)."""
        rates: dict = {}
        for rate in STAGES_RATES:
            rates[rate] = {}
            for pipeline, stages_ms in ((self.ours, ours_stages_ms), (self.naive, naive_stages_ms)):
                self._start_pipeline(pipeline.name)
                self._warm_up(pipeline)
                pipeline.place(STAGES_ORDERS, rate=rate)
                completions = pipeline.finished(STAGES_ORDERS)
                rates[rate][pipeline.name] = stages_ms()
                self._stop_pipeline(pipeline.name)
                self.m.clear_orders()
                offered_check(self.m.placed_per_s(completions), offered=rate, pipeline=pipeline.name)
        self.results["stages_ms"] = {"orders": STAGES_ORDERS, "rates": rates}

    def _cpu(self) -> None:
        """CPU ms per order of each component at 50 orders/s, ours and naive: on two cores the
        latency at a fixed load follows what an order costs the whole machine."""
        table: dict = {}
        for pipeline in self.pipelines:
            self._start_pipeline(pipeline.name)
            self._warm_up(pipeline)
            groups = {name: process.pid for name, process in self.env.processes.items()}
            before = cpu_by_component(groups)
            pipeline.place(self.cpu_orders, rate=CPU_RATE)
            completions = pipeline.finished(self.cpu_orders)
            table[pipeline.name] = {
                "cpu_ms_per_order": cpu_ms_per_order(before, cpu_by_component(groups), self.cpu_orders),
                **self.m.latencies_ms(completions),
                "placed_per_s": self.m.placed_per_s(completions),
            }
            self.m.clear_orders()
            offered_check(table[pipeline.name]["placed_per_s"], offered=CPU_RATE, pipeline=pipeline.name)
            self._stop_pipeline(pipeline.name)
        self.results["cpu"] = {"orders": self.cpu_orders, "rate": CPU_RATE, **table}
