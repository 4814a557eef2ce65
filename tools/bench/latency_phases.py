"""The bench's phases at fixed offered loads, ours and naive in turn: commit → sent latency,
the same on a contended machine (a bench-owned process keeps a core busy), the stages of
commit → sent, and the CPU each component spends per order. Each repeat runs both pipelines,
one after the other, so the ratios compare runs minutes apart at most, not phases apart.

A mixin of BenchRun (tools/bench/runner.py): it drives the same pipelines and processes."""

import statistics
from pathlib import Path
from typing import TypeVar

from tools.bench.cpu import cpu_by_component, cpu_ms_per_order
from tools.bench.cpu_hog import CpuHog
from tools.bench.invoice_load import plain_confirmations_check
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
T = TypeVar("T")


class LatencyPhases(BenchPhases):
    cpu_orders: int

    def _in_turn(self) -> list[list[Pipeline]]:
        return pipelines_in_turn(list(self.pipelines), self.repeats)

    def _latency(self) -> None:
        runs: dict = {pipeline.name: {load: [] for load in OFFERED_LOADS} for pipeline in self.pipelines}
        for turn in self._in_turn():
            for pipeline in turn:
                self._start_pipeline(pipeline.name)
                self._warm_up(pipeline)
                for load in OFFERED_LOADS:
                    runs[pipeline.name][load].append(self._latency_run(pipeline, load))
                self._stop_pipeline(pipeline.name)
        self.results["latency_ms"] = _spreads(runs)

    def _latency_run(self, pipeline: Pipeline, load: int) -> dict:
        """`load` orders/s for `load_seconds`: the run's quantiles."""
        orders = int(load * self.load_seconds)
        pipeline.place(orders, rate=load)
        completions = pipeline.finished(orders)
        run = {**self.m.latencies_ms(completions), "placed_per_s": self.m.placed_per_s(completions)}
        self.m.clear_orders()
        offered_check(run["placed_per_s"], offered=load, pipeline=pipeline.name)
        return run

    def _warm_up(self, pipeline: Pipeline) -> None:
        """A few orders through a newly started pipeline, not measured: its first tasks pay
        for imports, templates and connections, which a tail of its own would show."""
        pipeline.place(CPU_WARM_UP_ORDERS)
        pipeline.finished(CPU_WARM_UP_ORDERS)
        self.m.clear_orders()

    def _contended(self) -> None:
        """The latency phase at 50 and 100 orders/s while a process of the bench keeps one of
        the cores busy: a small or busy machine. How much of a core the hog got is reported
        (the median of the pipeline's runs), and must be at least HOG_FLOOR_CORES in every run."""
        runs: dict = {pipeline.name: {load: [] for load in CONTENDED_LOADS} for pipeline in self.pipelines}
        hog_runs: dict[str, list[float]] = {pipeline.name: [] for pipeline in self.pipelines}
        for number, turn in enumerate(self._in_turn()):
            for pipeline in turn:
                by_load, cores = self._contended_run(pipeline, number)
                for load, run in by_load.items():
                    runs[pipeline.name][load].append(run)
                hog_runs[pipeline.name].append(cores)
        hog_cores = {name: statistics.median(cores) for name, cores in hog_runs.items()}
        self.results["contended_latency_ms"] = {"loads": _spreads(runs), "hog_cores": hog_cores}

    def _contended_run(self, pipeline: Pipeline, number: int) -> tuple[dict[int, dict], float]:
        """One run of each contended load beside the hog, which runs for this pipeline's loads
        only; what it got of a core."""
        self._start_pipeline(pipeline.name)
        self._warm_up(pipeline)
        log = Path(self.env.workdir) / f"cpu-hog-{pipeline.name}-{number}.log"
        hog = CpuHog(log, seconds=len(CONTENDED_LOADS) * (self.load_seconds + 60) + 60).start()
        try:
            by_load = {load: self._latency_run(pipeline, load) for load in CONTENDED_LOADS}
            if not hog.running():
                raise LoadShortfall(f"contended, {pipeline.name}: the CPU hog ended before the load did")
            cores = round(hog.cores(), 2)
        finally:
            hog.stop()
        self._stop_pipeline(pipeline.name)
        if cores < HOG_FLOOR_CORES:
            raise LoadShortfall(
                f"contended, {pipeline.name}: the CPU hog got {cores:.2f} of a core, less than"
                f" {HOG_FLOOR_CORES}: the machine was not contended as asked"
            )
        return by_load, cores

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
        """CPU ms per order of each component at 50 orders/s, ours and naive in turn,
        `repeats` times: on two cores the latency at a fixed load follows what an order costs
        the whole machine. Each pipeline's figures are those of its run of median total (the
        lower middle one of an even count), so its components add up; every run's total is
        kept beside them."""
        runs: dict[str, list[dict]] = {pipeline.name: [] for pipeline in self.pipelines}
        for turn in self._in_turn():
            for pipeline in turn:
                runs[pipeline.name].append(self._cpu_run(pipeline))
        table = {name: median_run(found) for name, found in runs.items()}
        self.results["cpu"] = {"orders": self.cpu_orders, "rate": CPU_RATE, **table}

    def _cpu_run(self, pipeline: Pipeline) -> dict:
        self._start_pipeline(pipeline.name)
        self._warm_up(pipeline)
        groups = {name: process.pid for name, process in self.env.processes.items()}
        before = cpu_by_component(groups)
        pipeline.place(self.cpu_orders, rate=CPU_RATE)
        completions = pipeline.finished(self.cpu_orders)
        after = cpu_by_component(groups)
        if pipeline is self.ours:
            plain_confirmations_check(self.cpu_orders)  # no PDF priced in a plain confirmation
        run = {
            "cpu_ms_per_order": cpu_ms_per_order(before, after, self.cpu_orders),
            **self.m.latencies_ms(completions),
            "placed_per_s": self.m.placed_per_s(completions),
        }
        self.m.clear_orders()
        offered_check(run["placed_per_s"], offered=CPU_RATE, pipeline=pipeline.name)
        self._stop_pipeline(pipeline.name)
        return run


def pipelines_in_turn(pipelines: list[T], repeats: int) -> list[list[T]]:
    """The pipelines' order in each repeat: ours and naive in turn, which one goes first
    alternating (ours, naive; naive, ours; …), so that a machine slowing down or speeding up
    during the phase weighs on both alike and the ratio compares the same moments."""
    return [pipelines[:: 1 if number % 2 == 0 else -1] for number in range(repeats)]


def _spreads(runs: dict) -> dict:
    """Each pipeline's runs at each load as the spreads of their quantiles."""
    return {name: {load: _spread_of(found) for load, found in loads.items()} for name, loads in runs.items()}


def _spread_of(found: list[dict]) -> dict:
    return {q: spread([run[q] for run in found]) for q in QUANTILES}


def median_run(runs: list[dict]) -> dict:
    """The run of median total CPU (the lower middle one of an even count), with every run's
    total beside its figures."""
    ordered = sorted(runs, key=lambda run: run["cpu_ms_per_order"]["total"])
    return {**ordered[(len(ordered) - 1) // 2], "totals": [run["cpu_ms_per_order"]["total"] for run in runs]}
