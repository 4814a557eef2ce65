"""What each group of the bench's phases needs of the run: BenchRun (tools/bench/runner.py)
is made of these mixins, and gives them its environment, pipelines and results."""

import statistics
from collections.abc import Callable
from types import ModuleType
from typing import Any

from tools.bench.environment import BenchEnvironment
from tools.bench.pipelines import Pipeline


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def repeat(measure: Callable[[], float], times: int) -> dict:
    return spread([measure() for _ in range(times)])


class BenchPhases:
    env: BenchEnvironment
    m: ModuleType  # tools/bench/measure.py
    ours: Pipeline
    naive: Pipeline
    tuned_naive: Pipeline
    pipelines: tuple[Pipeline, ...]  # ours and naive: latency and soak
    compared: tuple[Pipeline, ...]  # and tuned naive: drain and saturation
    repeats: int
    load_seconds: float
    results: dict[str, Any]

    def _start_pipeline(self, pipeline: str) -> None:
        raise NotImplementedError

    def _stop_pipeline(self, pipeline: str) -> None:
        raise NotImplementedError

    def _start_worker(self, pipeline: str, *, prefetch_multiplier: int | None = None) -> None:
        raise NotImplementedError

    def _purge(self) -> None:
        raise NotImplementedError
