"""The figures docs/performance.md gives of what an invoice costs, and of the latest full run, are
those of the committed runs (tools/bench/results/) and of the bench's code: a run committed
again, or a changed count or rate, fails here until the words follow. (The rest of that page
records dated runs by hand: tests/unit/test_doc_figures.py leaves it out.)"""

import json
import re
import statistics
from functools import cache

from tools.bench.intake import INTAKE_P99_MS
from tools.bench.invoice_load import INVOICE_ORDERS, INVOICE_RATE
from tools.drill.processes import REPO

RESULTS = REPO / "tools/bench/results"
LATEST = "cpu+invoice+intake-latest.json"


@cache
def _results(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def _text() -> str:
    return re.sub(r"\s+", " ", (REPO / "docs/performance.md").read_text())


def _invoice_sentences() -> list[str]:
    run = _results(LATEST)
    invoice = run["invoice"]
    worker = invoice["worker_ms_per_email"]
    total = {side: invoice[side]["cpu_ms_per_order"]["total"] for side in ("without", "with")}
    plain, naive = run["cpu"]["ours"]["cpu_ms_per_order"], run["cpu"]["naive"]["cpu_ms_per_order"]
    return [
        f"{INVOICE_ORDERS} a run at {INVOICE_RATE} a second",
        f"`tools/bench/results/{LATEST}` ({run['machine']['started']}, "
        "`python -m tools.bench --phases cpu,invoice,intake`), a confirmation carrying its invoice cost the "
        f"worker {worker['with']['median']:.1f} ms of CPU against {worker['without']['median']:.1f} "
        f"without it: {invoice['worker_ratio']:.1f} times, {invoice['worker_added_ms']:.1f} ms more "
        f"(medians of {len(worker['with']['runs'])} runs each); all processes, {total['with']:.1f} ms "
        f"per order against {total['without']:.1f}.",
        f"The PDF weighs {invoice['pdf_bytes']['median']:,.0f} bytes "
        f"({invoice['pdf_bytes']['min']:,} to {invoice['pdf_bytes']['max']:,}).",
        f"Each run placed the {invoice['orders']} orders it asked for and the simulator took "
        f"{invoice['with']['messages_taken']} emails,",
        f"In the same run a plain confirmation at {run['cpu']['rate']} orders/s cost the worker "
        f"{plain['worker']:.1f} ms and all processes {plain['total']:.1f} ms (naive "
        f"{naive['total']:.1f}: {run['ratios']['cpu_per_order_ours_over_naive']:.2f} times).",
        *_intake_sentences(run),
    ]


def _intake_sentences(run: dict) -> list[str]:
    """The intake phase's orders arrive paid with a line: each confirmation carries its PDF."""
    load = max(run["intake_ms"]["loads"], key=int)
    figures = run["intake_ms"]["loads"][load]
    worker = statistics.median(cpu["worker"] for cpu in figures["cpu_ms_per_delivery"])
    return [
        f"In its intake phase at {load} deliveries/s, whose orders arrive paid and so carry their "
        f"invoice, a delivery's answer took {figures['p99']['median']:.1f} ms at the p99 (the target "
        f"is {INTAKE_P99_MS} ms) and the worker spent {worker:.1f} ms of CPU per delivery.",
    ]


def _before_and_after_sentences() -> list[str]:
    compared = _results("cpu-before-and-after-invoices.json")
    runs = {side: [run for run in compared["runs"] if run["side"] == side] for side in ("before", "after")}

    def worker(run: dict) -> float:
        return run["cpu"]["ours"]["cpu_ms_per_order"]["worker"]

    def median(side: str, figure) -> float:
        return statistics.median(figure(run) for run in runs[side])

    def ratio(run: dict) -> float:
        return run["ratios"]["cpu_per_order_ours_over_naive"]

    pairs: dict[int, dict[str, float]] = {run["pair"]: {} for run in compared["runs"]}
    for run in compared["runs"]:
        pairs[run["pair"]][run["side"]] = worker(run)
    higher = sum(1 for pair in pairs.values() if pair["after"] > pair["before"])
    started = sorted(run["machine"]["started"] for run in compared["runs"])
    latest = _results("bench-latest.json")["cpu"]["ours"]["cpu_ms_per_order"]["worker"]
    return [
        f"at the commit before them ({compared['commits']['before']}) and at {compared['commits']['after']}",
        f"in turn, {len(pairs)} pairs of one repeat each ({started[0]} to {started[-1][11:]}, "
        "`tools/bench/results/cpu-before-and-after-invoices.json`): the worker's CPU per plain "
        f"confirmation was {median('before', worker):.1f} ms before and {median('after', worker):.1f} "
        f"after (medians), higher after in {higher} of {len(pairs)} pairs; ours ÷ naive in the same "
        f"runs {median('before', ratio):.2f} before and {median('after', ratio):.2f} after. The last "
        f"full run had the worker at {latest:.1f} ms",
    ]


def test_the_invoices_cost_as_the_performance_page_gives_it_is_the_committed_runs():
    text = _text()
    for sentence in [*_invoice_sentences(), *_before_and_after_sentences()]:
        assert sentence in text, f"docs/performance.md should say, with the runs' figures: {sentence!r}"


def _latest_full_run_sentences() -> list[str]:
    run, partial = _results("bench-latest.json"), _results(LATEST)
    ratios = run["ratios"]
    [intake] = [run["intake_ms"]["loads"][max(run["intake_ms"]["loads"], key=int)]["p99"]["median"]]
    ours, naive = run["cpu"]["ours"]["cpu_ms_per_order"], run["cpu"]["naive"]["cpu_ms_per_order"]

    def without(results: dict) -> float:
        return results["invoice"]["worker_ms_per_email"]["without"]["median"]

    return [
        f"holds the latest full run's tables ({run['machine']['started']}, {run['seconds']:,.0f} s,",
        f"Against its targets: the drain {ratios['drain_ours_over_naive']:.2f} and the relay over the "
        f"backlog {run['relay_backlog_events_per_s']['median']:,.0f} events/s held; saturating end to end "
        f"{ratios['saturating_ours_over_naive']:.2f}, the p50 at 50 orders/s "
        f"{ratios['latency_p50_at_50_ours_over_naive']:.2f}, the p99 at 100 orders/s "
        f"{ratios['latency_p99_at_100_ours_over_naive']:.2f}, the CPU per order "
        f"{ratios['cpu_per_order_ours_over_naive']:.2f}, the relay pipelined ÷ waiting "
        f"{ratios['relay_pipelined_over_waiting_each_confirm']:.2f} and the intake's p99 at 50 "
        f"deliveries/s, {intake:.1f} ms, did not.",
        f"the invoice phase's worker spent {without(run):.1f} ms per email without an invoice, against "
        f"{without(partial):.1f} in the partial run of {partial['machine']['started']};",
        f"PostgreSQL {ours['postgresql']:.2f} against {naive['postgresql']:.2f}, RabbitMQ "
        f"{ours['rabbitmq']:.2f} against {naive['rabbitmq']:.2f}, the placing process {ours['bench']:.2f} "
        f"against {naive['bench']:.2f}, the worker {ours['worker']:.2f} against {naive['naive']:.2f}.",
    ]


def test_the_latest_full_run_as_the_performance_page_gives_it_is_the_committed_one():
    text = _text()
    for sentence in _latest_full_run_sentences():
        assert sentence in text, f"docs/performance.md should say, with the run's figures: {sentence!r}"
