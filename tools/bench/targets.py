"""What `make bench` holds itself to. Ours against the naive pipeline as ratios measured in the
same run, because a shared machine moves both pipelines alike and absolute figures by a
quarter between runs an hour apart: throughput at least naive's, latency and CPU per order
within a tenth (a tail within a half) of naive's, on a quiet machine and on one whose core a
bench-owned process keeps busy. Beside them the relay's own rates and the soak's memory.
"""

from tools.bench.intake import INTAKE_P99_MS, intake_p99

# Events/s of our relay over a 20,000-event backlog: more than ten times what the pipeline
# takes end to end, so the relay never sets the pace (docs/performance.md, "Decisions and why").
RELAY_EVENTS_PER_S = 3000

# name: (what, at least or at most, bound)
RATIO_TARGETS = {
    "saturating_ours_over_naive": ("saturating end to end, ours ÷ naive", ">=", 1.0),
    "drain_ours_over_naive": ("consumer drain, ours ÷ naive", ">=", 1.0),
    "latency_p50_at_50_ours_over_naive": ("p50 commit → sent at 50 orders/s, ours ÷ naive", "<=", 1.1),
    "latency_p99_at_100_ours_over_naive": ("p99 commit → sent at 100 orders/s, ours ÷ naive", "<=", 1.5),
    "contended_p50_at_50_ours_over_naive": ("contended: p50 at 50 orders/s, ours ÷ naive", "<=", 1.1),
    "contended_p99_at_100_ours_over_naive": ("contended: p99 at 100 orders/s, ours ÷ naive", "<=", 1.5),
    "cpu_per_order_ours_over_naive": ("CPU per order at 50 orders/s, ours ÷ naive", "<=", 1.1),
    "relay_pipelined_over_waiting_each_confirm": ("relay pipelined ÷ waiting for each confirm", ">=", 4.0),
}
# Stated beside the targets, bound to nothing.
RATIO_FIGURES = {
    "saturating_ours_over_tuned_naive": "saturating end to end, ours ÷ tuned naive",
    "drain_ours_over_tuned_naive": "consumer drain, ours ÷ tuned naive",
    "relay_over_raw_broker_confirms": "relay ÷ raw broker confirms",
    "invoice_worker_cpu_with_over_without": "worker CPU per confirmation, with its invoice ÷ without",
}

MEDIAN_RATIOS = {
    "relay_pipelined_over_waiting_each_confirm": (
        "relay_backlog_events_per_s",
        "relay_waiting_each_confirm_events_per_s",
    ),
    "relay_over_raw_broker_confirms": ("relay_backlog_events_per_s", "raw_broker_confirms_msgs_per_s"),
    "saturating_ours_over_naive": ("saturating_ours_orders_per_s", "saturating_naive_orders_per_s"),
    "saturating_ours_over_tuned_naive": (
        "saturating_ours_orders_per_s",
        "saturating_tuned_naive_orders_per_s",
    ),
    "drain_ours_over_naive": ("drain_ours_per_s", "drain_naive_per_s"),
    "drain_ours_over_tuned_naive": ("drain_ours_per_s", "drain_tuned_naive_per_s"),
}
LATENCY_RATIOS = ((50, "p50"), (100, "p99"))

# The soak's bound on the growth of the worker's and the relay's resident memory.
SOAK_RSS_GROWTH_LIMIT = 0.10


def targets_stated() -> list[tuple[str, str]]:
    """(what, bound) of every target, as docs/performance.md states them."""
    return [
        ("relay over the backlog", f"≥ {RELAY_EVENTS_PER_S:,} events/s"),
        *(
            (what, f"{'≥' if sense == '>=' else '≤'} {bound:g}")
            for what, sense, bound in RATIO_TARGETS.values()
        ),
        ("worker and relay RSS growth over the soak", f"< {SOAK_RSS_GROWTH_LIMIT:.0%}"),
        ("intake: p99 delivery → answer at the higher load", f"≤ {INTAKE_P99_MS} ms"),
    ]


def at_load(table: dict, load: int) -> dict:
    """A load's row, whether the keys are numbers (in the run) or strings (read from JSON)."""
    return table[load] if load in table else table[str(load)]


def ratios(results: dict) -> dict[str, float]:
    """The ratios of what the run measured (a partial run measured some)."""
    found = {
        name: results[over]["median"] / results[under]["median"]
        for name, (over, under) in MEDIAN_RATIOS.items()
        if over in results and under in results
    }
    tables = {"latency": results.get("latency_ms")}
    if "contended_latency_ms" in results:
        tables["contended"] = results["contended_latency_ms"]["loads"]
    for phase, table in tables.items():
        if not table:
            continue
        for load, quantile in LATENCY_RATIOS:
            ours, naive = at_load(table["ours"], load), at_load(table["naive"], load)
            found[f"{phase}_{quantile}_at_{load}_ours_over_naive"] = (
                ours[quantile]["median"] / naive[quantile]["median"]
            )
    if "cpu" in results:
        cpu = results["cpu"]
        found["cpu_per_order_ours_over_naive"] = (
            cpu["ours"]["cpu_ms_per_order"]["total"] / cpu["naive"]["cpu_ms_per_order"]["total"]
        )
    if "invoice" in results:
        found["invoice_worker_cpu_with_over_without"] = results["invoice"]["worker_ratio"]
    return found


def targets_check(results: dict) -> dict[str, bool]:
    """Each target of what the run measured: met or not."""
    found = results["ratios"]
    checks = {
        name: (found[name] >= bound if sense == ">=" else found[name] <= bound)
        for name, (_, sense, bound) in RATIO_TARGETS.items()
        if name in found
    }
    if "relay_backlog_events_per_s" in results:
        checks["relay_at_least_3000_events_per_s"] = (
            results["relay_backlog_events_per_s"]["median"] >= RELAY_EVENTS_PER_S
        )
    if "intake_ms" in results:
        checks["intake_p99_le_50ms"] = intake_p99(results) <= INTAKE_P99_MS
    if "soak" in results:
        for name in ("worker", "relay"):
            checks[f"{name}_rss_growth_under_10_percent"] = (
                results["soak"][f"{name}_rss_growth"] < SOAK_RSS_GROWTH_LIMIT
            )
    return checks


def target_rows(results: dict) -> list[tuple[str, str, str, bool | None]]:
    """(what, value, target, met) of every target and stated ratio, for the report's table."""
    found, checks = results["ratios"], targets_check(results)
    rows: list[tuple[str, str, str, bool | None]] = []
    if "relay_at_least_3000_events_per_s" in checks:
        relay = results["relay_backlog_events_per_s"]["median"]
        rows.append(
            (
                "relay over a 20,000-event backlog",
                f"{relay:,.0f} events/s",
                f"≥ {RELAY_EVENTS_PER_S:,} events/s",
                checks["relay_at_least_3000_events_per_s"],
            )
        )
    for name, (what, sense, bound) in RATIO_TARGETS.items():
        if name in found:
            rows.append(
                (what, f"{found[name]:.2f}", f"{'≥' if sense == '>=' else '≤'} {bound:g}", checks[name])
            )
    rows += [(what, f"{found[name]:.2f}", "-", None) for name, what in RATIO_FIGURES.items() if name in found]
    if "soak" in results:
        soak = results["soak"]
        rows += [
            (
                f"worker RSS growth, {soak['seconds']:.0f} s soak at {soak['orders_per_s']:.0f} orders/s",
                f"{soak['worker_rss_growth']:+.1%}",
                f"< {SOAK_RSS_GROWTH_LIMIT:.0%}",
                checks["worker_rss_growth_under_10_percent"],
            ),
            (
                "relay RSS growth, the same soak",
                f"{soak['relay_rss_growth']:+.1%}",
                f"< {SOAK_RSS_GROWTH_LIMIT:.0%}",
                checks["relay_rss_growth_under_10_percent"],
            ),
        ]
    if "intake_ms" in results:
        rows.append(
            (
                f"intake: p99 delivery → answer at {max(results['intake_ms']['loads'])} deliveries/s",
                f"{intake_p99(results):.1f} ms",
                f"≤ {INTAKE_P99_MS} ms",
                checks["intake_p99_le_50ms"],
            )
        )
    return rows
