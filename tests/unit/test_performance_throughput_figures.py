"""The figures docs/performance.md gives of throughput runs in turn (two commits' bench, one
repeat each, the first of a pair alternating) are those of the committed runs
(tools/bench/results/): a run committed again fails here until the words follow."""

import json
import re
import statistics
from collections.abc import Callable

from tools.drill.processes import REPO

RESULTS = REPO / "tools/bench/results"
Figure = Callable[[dict], float]


def _text() -> str:
    return re.sub(r"\s+", " ", (REPO / "docs/performance.md").read_text())


def _drain_ratio(run: dict) -> float:
    return run["ratios"]["drain_ours_over_naive"]


def _saturating_ratio(run: dict) -> float:
    return run["ratios"]["saturating_ours_over_naive"]


def _cpu_ratio(run: dict) -> float:
    return run["ratios"]["cpu_per_order_ours_over_naive"]


def _worker_ms(run: dict) -> float:
    return run["cpu"]["ours"]["cpu_ms_per_order"]["worker"]


def _median_of(key: str) -> Figure:
    return lambda run: run[key]["median"]


class _Pairs:
    def __init__(self, name: str) -> None:
        self.name = name
        self.compared = json.loads((RESULTS / name).read_text())
        self.runs = self.compared["runs"]
        self.pairs = sorted({run["pair"] for run in self.runs})

    def median(self, side: str, figure: Figure) -> float:
        return statistics.median(figure(run) for run in self.runs if run["side"] == side)

    def moved(self, figure: Figure, fmt: str = ".2f") -> str:
        return f"{self.median('before', figure):{fmt}} → {self.median('after', figure):{fmt}}"

    def after_higher(self, figure: Figure) -> int:
        side = {(run["pair"], run["side"]): figure(run) for run in self.runs}
        return sum(1 for pair in self.pairs if side[pair, "after"] > side[pair, "before"])

    def span(self) -> str:
        started = sorted(run["machine"]["started"] for run in self.runs)
        return f"{started[0]} to {started[-1][11:]}"


def _sentences(name: str) -> list[str]:
    pairs, n = _Pairs(name), None
    n = len(pairs.pairs)
    commits = pairs.compared["commits"]
    return [
        f"at {commits['before']} and at {commits['after']} in turn, {n} pairs of one repeat each "
        f"({pairs.span()}, `tools/bench/results/{name}`).",
        f"the consumer drain, ours ÷ naive, {pairs.moved(_drain_ratio)} (ours "
        f"{pairs.moved(_median_of('drain_ours_per_s'), ',.0f')} emails/s, naive "
        f"{pairs.moved(_median_of('drain_naive_per_s'), ',.0f')}), lower after in "
        f"{n - pairs.after_higher(_drain_ratio)} of {n} pairs;",
        f"saturating end to end, ours ÷ naive, {pairs.moved(_saturating_ratio)} (ours "
        f"{pairs.moved(_median_of('saturating_ours_orders_per_s'), ',.0f')} orders/s, naive "
        f"{pairs.moved(_median_of('saturating_naive_orders_per_s'), ',.0f')}), lower after in "
        f"{n - pairs.after_higher(_saturating_ratio)} of {n};",
        f"the worker's CPU per plain confirmation {pairs.moved(_worker_ms, '.1f')} ms, higher after in "
        f"{pairs.after_higher(_worker_ms)} of {n}, and the CPU per order, ours ÷ naive, "
        f"{pairs.moved(_cpu_ratio)}, higher after in {pairs.after_higher(_cpu_ratio)} of {n}.",
    ]


def test_the_throughput_since_cd4da66_as_the_performance_page_gives_it_is_the_committed_runs():
    text = _text()
    for sentence in _sentences("throughput-cd4da66-and-main.json"):
        assert sentence in text, f"docs/performance.md should say, with the runs' figures: {sentence!r}"
