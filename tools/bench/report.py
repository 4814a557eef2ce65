"""The benchmark's report: JSON for machines, a Markdown table for people, and a picture of
commit → sent latency against offered load for our pipeline and the naive one."""

import json
from pathlib import Path

from tools.bench.intake import intake_lines
from tools.bench.invoice_load import invoice_lines
from tools.bench.retention_load import retention_lines
from tools.bench.stages import stages_lines
from tools.bench.targets import SOAK_RSS_GROWTH_LIMIT, at_load, target_rows


def report_write(results: dict, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / "bench-latest.json"
    json_path.write_text(json.dumps(results, indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / "bench-latest.md"
    markdown_path.write_text(report_markdown(results))
    chart_path = directory / "latency.png"
    latency_chart(results, chart_path)
    return [json_path, markdown_path, chart_path]


def report_markdown(results: dict) -> str:
    def figure(key: str) -> str:
        value = results[key]
        return f"{value['median']:,.0f} ({value['min']:,.0f} to {value['max']:,.0f})"

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
    lines += invoice_lines(results.get("invoice"))
    lines += intake_lines(results.get("intake_ms"))
    lines += retention_lines(results.get("retention"))
    lines += contended_lines(results.get("contended_latency_ms"))
    targets = target_rows(results)
    long_soak = results.get("soak_long")
    if long_soak:  # `make soak`, run on its own: the 10 minutes do not fit in `make bench`
        for name in ("worker", "relay"):
            growth = long_soak["soak"][f"{name}_rss_growth"]
            targets.append(
                (
                    f"{name} RSS growth, {long_soak['soak']['seconds']:.0f} s soak "
                    f"at {long_soak['soak']['orders_per_s']:.0f} orders/s (`make soak`)",
                    f"{growth:+.1%}",
                    f"< {SOAK_RSS_GROWTH_LIMIT:.0%}",
                    growth < SOAK_RSS_GROWTH_LIMIT,
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
            mine, theirs = ours.get(key, 0), naive.get(naive_key, 0)
            ratio = f"{mine / theirs:.2f}" if theirs else "-"  # the relay and beat: ours alone
            rows.append(f"| {label} | {mine:.2f} | {theirs:.2f} | {ratio} |")
    latency = " | ".join(f"{cpu[name]['p50']:.1f} / {cpu[name]['p99']:.1f}" for name in ("ours", "naive"))
    return [
        "",
        f"| CPU ms per order at {cpu['rate']} orders/s, {cpu['orders']} orders "
        "| ours | naive | ours ÷ naive |",
        "|---|---:|---:|---:|",
        *rows,
        f"| commit → sent p50 / p99 in the same run, ms | {latency} | |",
    ]


def contended_lines(contended: dict | None) -> list[str]:
    """Latency at 50 and 100 orders/s while a bench-owned process keeps a core busy."""
    if not contended:
        return []
    loads, hog = contended["loads"], contended["hog_cores"]
    lines = [
        "",
        "| contended (a process of the bench spinning on a core), commit → sent ms "
        "| offered orders/s | placed orders/s | p50 | p95 | p99 | the spinner's cores |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for pipeline in ("ours", "naive"):
        for load in sorted(int(load) for load in loads[pipeline]):
            quantiles = at_load(loads[pipeline], load)
            cells = " | ".join(f"{quantiles[q]['median']:.1f}" for q in ("placed_per_s", "p50", "p95", "p99"))
            lines.append(f"| {pipeline} | {load} | {cells} | {hog[pipeline]:.2f} |")
    return lines
