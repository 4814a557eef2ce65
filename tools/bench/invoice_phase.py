"""The invoice phase of `make bench`: what an invoice costs per order, ours only. Orders with
lines paid at placing, `invoice_orders` a run at INVOICE_RATE a second, without and with their
invoice in turn on the same running worker (which goes first alternating, as the cpu phase's
pipelines do), `repeats` times each; CPU per order by component from /proc, the worker's per
email, and the PDF's size (tools/bench/invoice_load.py).

A mixin of BenchRun (tools/bench/runner.py)."""

import statistics

import requests

from tools.bench.cpu import cpu_by_component, cpu_ms_per_order
from tools.bench.environment import WORKER_PROCESSES
from tools.bench.invoice_load import (
    INVOICE_RATE,
    INVOICE_WARM_UP_ORDERS,
    INVOICE_WARM_UP_RUNS,
    invoice_run_check,
    invoice_run_done,
    invoiced_orders_place,
    invoicing,
    paid_orders_counted,
)
from tools.bench.latency_phases import LatencyPhases, median_run, pipelines_in_turn
from tools.bench.phases import spread
from tools.bench.pipelines import LoadShortfall, offered_check


class InvoicePhases(LatencyPhases):
    invoice_orders: int
    _invoice_numbers: int = 0  # orders placed so far: each order's number is new

    def _invoice(self) -> None:
        """Worker CPU per email without and with the invoice, their ratio and difference, each
        side's table of the run of median total, and the PDF's size."""
        self._start_pipeline("ours")
        self._warm_up(self.ours)
        self._invoice_warm_up()
        runs: dict[bool, list[dict]] = {False: [], True: []}
        for turn in pipelines_in_turn([False, True], self.repeats):
            for issued in turn:
                runs[issued].append(self._invoice_run(self.invoice_orders, issued=issued))
        self._stop_pipeline("ours")
        worker = {
            name: spread([run["worker_ms_per_email"] for run in runs[issued]])
            for name, issued in (("without", False), ("with", True))
        }
        sizes = [run["pdf_bytes"] for run in runs[True]]
        self.results["invoice"] = {
            "orders": self.invoice_orders,
            "rate": INVOICE_RATE,
            "without": median_run(runs[False]),
            "with": median_run(runs[True]),
            "worker_ms_per_email": worker,
            "worker_ratio": worker["with"]["median"] / worker["without"]["median"],
            "worker_added_ms": round(worker["with"]["median"] - worker["without"]["median"], 2),
            "pdf_bytes": {
                "median": statistics.median(size["median"] for size in sizes),
                "min": min(size["min"] for size in sizes),
                "max": max(size["max"] for size in sizes),
            },
        }

    def _invoice_warm_up(self) -> None:
        """Invoiced orders, not measured, until each worker process has sent a PDF."""
        processes: set[str] = set()
        for _ in range(INVOICE_WARM_UP_RUNS):
            run = self._invoice_run(INVOICE_WARM_UP_ORDERS, issued=True)
            processes |= set(run["processes_that_sent_a_document"])
            if len(processes) >= WORKER_PROCESSES:
                return
        raise LoadShortfall(
            f"invoice: after {INVOICE_WARM_UP_RUNS} warm-up runs of {INVOICE_WARM_UP_ORDERS} orders, "
            f"{len(processes)} of the worker's {WORKER_PROCESSES} processes had sent a PDF"
        )

    def _invoice_run(self, orders: int, *, issued: bool) -> dict:
        """`orders` orders with lines paid at placing, with or without their invoice, until every
        email is sent and every payment counted: CPU by component, checked against what was
        asked (tools/bench/invoice_load.py)."""
        requests.post(f"{self.env.mailsim_url}/_sim/reset", timeout=30).raise_for_status()
        counted = paid_orders_counted()
        groups = {name: process.pid for name, process in self.env.processes.items()}
        before = cpu_by_component(groups)
        with invoicing(issued):
            invoiced_orders_place(
                self.m.place_by_placers, orders, rate=INVOICE_RATE, first_number=self._invoice_numbers
            )
        self._invoice_numbers += orders
        completions = self.ours.finished(orders)
        # The order.paid events' counter too: its work is the same in both runs, and a late one
        # would meet its order gone (the run's orders are cleared next).
        self.m.wait_until(lambda: paid_orders_counted() >= counted + orders, timeout=300)
        after = cpu_by_component(groups)
        done = invoice_run_done(self.env.mailsim_url)
        invoice_run_check(done, asked=orders, issued=issued)
        self.m.clear_orders()
        offered_check(self.m.placed_per_s(completions), offered=INVOICE_RATE, pipeline="ours, invoice")
        sizes = done.pop("pdf_bytes")
        worker_ms = (after["worker"] - before["worker"]) * 1000
        return {
            "cpu_ms_per_order": cpu_ms_per_order(before, after, orders),
            "worker_ms_per_email": round(worker_ms / done["emails_sent"], 2),
            **done,
            "pdf_bytes": sizes and {"median": statistics.median(sizes), "min": sizes[0], "max": sizes[-1]},
            **self.m.latencies_ms(completions),
        }
