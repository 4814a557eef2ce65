"""The benchmark's report: JSON for machines, a Markdown table for people, and a picture of
commit → sent latency against offered load for our pipeline and the naive one."""

import json
from pathlib import Path

from tools.bench.intake import INTAKE_P99_MS, intake_lines, intake_p99
from tools.bench.retention_load import retention_lines

TARGETS = {
    "relay_pipelined_over_waiting_each_confirm": (">=", 4.0),
    "saturating_ours_over_naive": (">=", 0.9),
    "drain_ours_over_naive": (">=", 0.9),
}
# Events/s of our relay over a 20,000-event backlog: more than ten times what the pipeline
# takes end to end, so the relay never sets the pace (docs/performance.md, "Relay").
RELAY_EVENTS_PER_S = 3000


def report_write(results: dict, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / "bench-latest.json"
    json_path.write_text(json.dumps(results, indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / "bench-latest.md"
    markdown_path.write_text(report_markdown(results))
    chart_path = directory / "latency.png"
    latency_chart(results, chart_path)
    return [json_path, markdown_path, chart_path]


def targets_check(results: dict) -> dict[str, bool]:
    ratios = results["ratios"]
    checks = {name: ratios[name] >= bound for name, (_, bound) in TARGETS.items()}
    relay = results["relay_backlog_events_per_s"]["median"]
    checks["relay_at_least_3000_events_per_s"] = relay >= RELAY_EVENTS_PER_S
    at_50 = results["latency_ms"]["ours"][50]
    checks["ours_p50_at_50_per_s_le_10ms"] = at_50["p50"]["median"] <= 10
    checks["ours_p99_at_50_per_s_le_30ms"] = at_50["p99"]["median"] <= 30
    checks["ours_p99_at_100_per_s_le_100ms"] = results["latency_ms"]["ours"][100]["p99"]["median"] <= 100
    if "intake_ms" in results:
        checks["intake_p99_le_50ms"] = intake_p99(results) <= INTAKE_P99_MS
    soak = results["soak"]
    checks["worker_rss_growth_under_10_percent"] = soak["worker_rss_growth"] < 0.10
    checks["relay_rss_growth_under_10_percent"] = soak["relay_rss_growth"] < 0.10
    return checks


def report_markdown(results: dict) -> str:
    def figure(key: str) -> str:
        value = results[key]
        return f"{value['median']:,.0f} ({value['min']:,.0f} to {value['max']:,.0f})"

    r = results["ratios"]
    rows = [
        ("raw: broker, persistent messages with pipelined confirms, msg/s", "raw_broker_confirms_msgs_per_s"),
        ("raw: PostgreSQL order + outbox transaction, tx/s", "raw_pg_order_outbox_tx_per_s"),
        ("relay over a 20,000-event backlog, events/s", "relay_backlog_events_per_s"),
        ("the same relay waiting for each confirm, events/s", "relay_waiting_each_confirm_events_per_s"),
        ("consumer drain, ours, orders/s", "drain_ours_per_s"),
        ("consumer drain, naive, orders/s", "drain_naive_per_s"),
        ("consumer drain, tuned naive, orders/s", "drain_tuned_naive_per_s"),
        ("saturating end to end (commit → sent), ours, orders/s", "saturating_ours_orders_per_s"),
        ("saturating end to end, naive, orders/s", "saturating_naive_orders_per_s"),
        ("saturating end to end, tuned naive, orders/s", "saturating_tuned_naive_orders_per_s"),
    ]
    lines = [
        "| measurement | median (min to max) |",
        "|---|---:|",
        *(f"| {label} | {figure(key)} |" for label, key in rows),
        "",
        tuned_naive_sentence(results["tuned_naive"]),
        "",
        *scaling_lines(results["scaling"], cpus=results.get("machine", {}).get("cpus")),
        "",
        "| commit → sent latency, ms | offered orders/s | placed orders/s | p50 | p95 | p99 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for pipeline in ("ours", "naive"):
        for load, quantiles in results["latency_ms"][pipeline].items():
            cells = " | ".join(f"{quantiles[q]['median']:.1f}" for q in ("p50", "p95", "p99"))
            placed = quantiles.get("placed_per_s", {}).get("median")
            lines.append(f"| {pipeline} | {load} | {'' if placed is None else f'{placed:.1f}'} | {cells} |")
    lines += stages_lines(results.get("stages_ms"))
    lines += cpu_lines(results.get("cpu"))
    lines += intake_lines(results.get("intake_ms"))
    lines += retention_lines(results.get("retention"))
    soak = results["soak"]
    checks = targets_check(results)
    at_50 = results["latency_ms"]["ours"][50]
    targets = [
        (
            "relay over a 20,000-event backlog",
            f"{results['relay_backlog_events_per_s']['median']:,.0f} events/s",
            f"≥ {RELAY_EVENTS_PER_S:,} events/s",
            checks["relay_at_least_3000_events_per_s"],
        ),
        (
            "relay pipelined ÷ waiting for each confirm",
            f"{r['relay_pipelined_over_waiting_each_confirm']:.2f}",
            "≥ 4",
            checks["relay_pipelined_over_waiting_each_confirm"],
        ),
        (
            "relay ÷ raw broker confirms",
            f"{r['relay_over_raw_broker_confirms']:.2f}",
            "-",
            None,
        ),
        (
            "saturating end to end, ours ÷ naive",
            f"{r['saturating_ours_over_naive']:.2f}",
            "≥ 0.9",
            checks["saturating_ours_over_naive"],
        ),
        (
            "saturating end to end, ours ÷ tuned naive",
            f"{r['saturating_ours_over_tuned_naive']:.2f}",
            "-",
            None,
        ),
        (
            "consumer drain, ours ÷ naive",
            f"{r['drain_ours_over_naive']:.2f}",
            "≥ 0.9",
            checks["drain_ours_over_naive"],
        ),
        ("consumer drain, ours ÷ tuned naive", f"{r['drain_ours_over_tuned_naive']:.2f}", "-", None),
        (
            "p50 at 50 orders/s, ours",
            f"{at_50['p50']['median']:.1f} ms",
            "≤ 10 ms",
            checks["ours_p50_at_50_per_s_le_10ms"],
        ),
        (
            "p99 at 50 orders/s, ours",
            f"{at_50['p99']['median']:.1f} ms",
            "≤ 30 ms",
            checks["ours_p99_at_50_per_s_le_30ms"],
        ),
        (
            "p99 at 100 orders/s, ours",
            f"{results['latency_ms']['ours'][100]['p99']['median']:.1f} ms",
            "≤ 100 ms",
            checks["ours_p99_at_100_per_s_le_100ms"],
        ),
        (
            f"worker RSS growth, {soak['seconds']:.0f} s soak at {soak['orders_per_s']:.0f} orders/s",
            f"{soak['worker_rss_growth']:+.1%}",
            "< 10 %",
            checks["worker_rss_growth_under_10_percent"],
        ),
        (
            "relay RSS growth, the same soak",
            f"{soak['relay_rss_growth']:+.1%}",
            "< 10 %",
            checks["relay_rss_growth_under_10_percent"],
        ),
    ]
    if "intake_ms" in results:
        targets.append(
            (
                f"intake: p99 delivery → answer at {max(results['intake_ms']['loads'])} deliveries/s",
                f"{intake_p99(results):.1f} ms",
                f"≤ {INTAKE_P99_MS} ms",
                checks["intake_p99_le_50ms"],
            )
        )
    long_soak = results.get("soak_long")
    if long_soak:  # `make soak`, run on its own: the 10 minutes do not fit in `make bench`
        for name in ("worker", "relay"):
            growth = long_soak["soak"][f"{name}_rss_growth"]
            targets.append(
                (
                    f"{name} RSS growth, {long_soak['soak']['seconds']:.0f} s soak "
                    f"at {long_soak['soak']['orders_per_s']:.0f} orders/s (`make soak`)",
                    f"{growth:+.1%}",
                    "< 10 %",
                    growth < 0.10,
                )
            )
    lines += ["", "| ratio or target | value | target | met |", "|---|---:|---:|---|"]
    lines += [
        f"| {name} | {value} | {target} | {'-' if met is None else _yes(met)} |"
        for name, value, target, met in targets
    ]
    runs = len(results["relay_backlog_events_per_s"]["runs"])
    machine = results.get("machine", {})
    lines += [
        "",
        f"Whole run: {results['seconds']:.0f} s, {machine.get('started', '?')}, "
        f"{machine.get('cpus', '?')} CPUs, load average {machine.get('load_before', '?')} before "
        f"and {machine.get('load_after', '?')} after. Medians of {runs} runs each.",
    ]
    return "\n".join(lines) + "\n"


def tuned_naive_sentence(tuned: dict) -> str:
    """What tuned naive is, and how its prefetch multiplier was chosen."""
    what = (
        f"Tuned naive: the naive pipeline's worker ({tuned['worker_processes']} processes) with its "
        f"database connections kept for the processes' life and prefetch multiplier "
        f"{tuned['prefetch_multiplier']}"
    )
    if tuned["chosen_by"] != "fastest drain":
        return f"{what} (given for this run)."
    sweep = tuned["drain_per_s_by_prefetch"]
    multipliers = " / ".join(str(row["prefetch_multiplier"]) for row in sweep)
    rates = " / ".join(f"{row['drain_per_s']['median']:,.0f}" for row in sweep)
    runs = len(sweep[0]["drain_per_s"]["runs"])
    return (
        f"{what}, the fastest of its drains of {tuned['orders_per_drain']:,} orders at prefetch "
        f"{multipliers}: {rates} orders/s (medians of {runs})."
    )


def scaling_lines(scaling: dict, *, cpus: int | None) -> list[str]:
    """Our pipeline at each count of worker and relay processes, and what the counts share."""

    def processes(count: int, what: str) -> str:
        return f"{count} {what}{'es' if count > 1 else ''}"

    lines = [
        "| scaling: ours end to end | orders/s, median (min to max) | orders/s per worker process |",
        "|---|---:|---:|",
    ]
    for row in scaling["configurations"]:
        workers, rate = row["worker_processes"], row["orders_per_s"]
        beyond = f" (more than the {cpus} CPUs)" if cpus and workers > cpus else ""
        lines.append(
            f"| {processes(workers, 'worker process')}{beyond}, "
            f"{processes(row['relay_processes'], 'relay process')} "
            f"| {rate['median']:,.0f} ({rate['min']:,.0f} to {rate['max']:,.0f}) "
            f"| {row['orders_per_s_per_worker_process']:,.1f} |"
        )
    most = max(row["worker_processes"] for row in scaling["configurations"])
    lines += [
        "",
        f"Scaling: {scaling['orders_per_run']:,} orders per configuration, placed as fast as one "
        f"process can; every event is published by the relay processes (`manage.py relay_outbox`, "
        f"a sweep every {scaling['relay_interval_seconds']:g} s), none by the placing process. "
        + (
            f"The machine has {cpus} CPUs: {most} worker processes exceed them, and PostgreSQL, "
            "RabbitMQ, the mail simulator, the load generator and the relays run on the same CPUs."
            if cpus and most > cpus
            else f"The machine has {cpus or '?'} CPUs, shared with PostgreSQL, RabbitMQ, the mail "
            "simulator, the load generator and the relays."
        ),
    ]
    return lines


def latency_chart(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4.2), dpi=110)
    for pipeline, colour in (("ours", "#417690"), ("naive", "#c0392b")):
        table = results["latency_ms"][pipeline]
        loads = sorted(int(load) for load in table)
        for quantile, style in (("p50", "-"), ("p99", "--")):
            values = [table[load if load in table else str(load)][quantile]["median"] for load in loads]
            axis.plot(loads, values, style, marker="o", color=colour, label=f"{pipeline} {quantile}")
    axis.set_xlabel("offered load, orders/s")
    axis.set_ylabel("commit → sent, ms")
    axis.set_yscale("log")
    axis.set_title("Commit → sent latency: our pipeline and the naive baseline")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _yes(met: bool) -> str:
    return "yes" if met else "**no**"


def stages_lines(stages: dict | None) -> list[str]:
    """Where commit → sent goes (the p50 of each step; the steps' p50s need not add up)."""
    if not stages:
        return []
    rows = [
        (
            "order commit → claim: publish, broker delivery, hand-off to a pool process, locked read",
            "to_claim",
        ),
        ("claim → sent: rendering, attempt row, claim commit, provider call", "claim_to_sent"),
        ("of which the provider call", "provider_call"),
        ("total commit → sent", "total"),
        ("(off the email's path) commit → event marked published", "to_marked_published"),
    ]
    return [
        "",
        f"| where the time goes, ours at {stages['rate']} orders/s, {stages['orders']} orders | p50 ms |",
        "|---|---:|",
        *(f"| {label} | {stages[key]:.1f} |" for label, key in rows),
    ]


CPU_COMPONENTS = (
    ("bench", "placers (the bench process: order transactions, the on-commit publish)"),
    ("worker", "worker (main process and pool)"),
    ("relay", "relay"),
    ("beat", "beat"),
    ("mailsim", "mail simulator"),
    ("postgresql", "PostgreSQL"),
    ("rabbitmq", "RabbitMQ"),
    ("total", "total"),
)


def cpu_lines(cpu: dict | None) -> list[str]:
    """CPU ms per order of each component, ours beside naive (tools/bench/cpu.py)."""
    if not cpu:
        return []
    ours, naive = cpu["ours"]["cpu_ms_per_order"], cpu["naive"]["cpu_ms_per_order"]
    rows = []
    for key, label in CPU_COMPONENTS:
        naive_key = "naive" if key == "worker" else key
        if key in ours or naive_key in naive:
            rows.append(f"| {label} | {ours.get(key, 0):.2f} | {naive.get(naive_key, 0):.2f} |")
    latency = " | ".join(f"{cpu[name]['p50']:.1f} / {cpu[name]['p99']:.1f}" for name in ("ours", "naive"))
    return [
        "",
        f"| CPU ms per order at {cpu['rate']} orders/s, {cpu['orders']} orders | ours | naive |",
        "|---|---:|---:|",
        *rows,
        f"| commit → sent p50 / p99 in the same run, ms | {latency} |",
    ]
