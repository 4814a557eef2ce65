"""The bench's phases of ours beside other work: a shop platform's deliveries through the web
process while ours sends their emails, ours' latency while the retention job clears a backlog
of personal data, and a memory soak.

A mixin of BenchRun (tools/bench/runner.py)."""

import statistics
import time

from tools.bench.cpu import cpu_by_component
from tools.bench.latency_phases import CPU_WARM_UP_ORDERS
from tools.bench.phases import BenchPhases, spread
from tools.bench.pipelines import LoadShortfall
from tools.drill.processes import free_port


class SideLoadPhases(BenchPhases):
    soak_seconds: float
    soak_rate: float | None

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
