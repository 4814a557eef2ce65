"""`make bench` (python -m tools.bench): the price of the guarantees, side by side in one run.
Writes tools/bench/results/bench-latest.json, bench-latest.md and latency.png; prints the table."""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from tools.bench.pipelines import LoadShortfall
from tools.bench.runner import (
    CPU_ORDERS,
    DRAIN_ORDERS,
    INVOICE_ORDERS,
    PHASES,
    PREFETCH_MULTIPLIERS,
    SCALING_ORDERS,
    BenchRun,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--load-seconds", type=float, default=10.0, help="length of each load phase")
    parser.add_argument("--soak-seconds", type=float, default=float(os.environ.get("SOAK", "180")))
    parser.add_argument("--out", default="tools/bench/results")
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help="comma-separated subset, for investigating one figure (the report needs all)",
    )
    parser.add_argument(
        "--soak-rate", type=float, help="orders/s of the soak (default: half the saturating rate)"
    )
    parser.add_argument(
        "--drain-orders", type=int, default=DRAIN_ORDERS, help="the backlog each drain works off"
    )
    parser.add_argument(
        "--scaling-orders",
        type=int,
        default=SCALING_ORDERS,
        help="orders per worker and relay configuration of the scaling phase",
    )
    parser.add_argument(
        "--cpu-orders", type=int, default=CPU_ORDERS, help="orders per pipeline of the CPU phase"
    )
    parser.add_argument(
        "--invoice-orders",
        type=int,
        default=INVOICE_ORDERS,
        help="orders per run, without and with their invoice, of the invoice phase",
    )
    parser.add_argument(
        "--tuned-prefetch",
        type=int,
        help="tuned naive's prefetch multiplier (default: the fastest drain of "
        f"{', '.join(map(str, PREFETCH_MULTIPLIERS))}, measured in the run)",
    )
    args = parser.parse_args(argv)
    phases = tuple(phase.strip() for phase in args.phases.split(",") if phase.strip())
    unknown = sorted(set(phases) - set(PHASES))
    if unknown:
        parser.error(f"unknown phase(s) {', '.join(unknown)}; choose from {', '.join(PHASES)}")
    if "soak" in phases and "saturation" not in phases and args.soak_rate is None:
        parser.error("a soak without the saturation phase needs --soak-rate")

    from tools.bench.report import report_markdown, report_write

    try:
        results = BenchRun(
            Path(tempfile.mkdtemp(prefix="bench-")),
            repeats=args.repeats,
            load_seconds=args.load_seconds,
            soak_seconds=args.soak_seconds,
            phases=phases,
            soak_rate=args.soak_rate,
            drain_orders=args.drain_orders,
            scaling_orders=args.scaling_orders,
            tuned_prefetch=args.tuned_prefetch,
            cpu_orders=args.cpu_orders,
            invoice_orders=args.invoice_orders,
        ).run()
    except LoadShortfall as shortfall:  # figures of a smaller load than claimed: none at all
        print(f"bench FAILED: {shortfall}", file=sys.stderr)
        return 1
    if phases != PHASES:  # a partial run: its figures, not the report
        path = Path(args.out) / f"{'+'.join(phases)}-latest.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=2, sort_keys=True, default=str) + "\n")
        print(json.dumps({k: v for k, v in results.items() if k != "latency_ms"}, indent=2, default=str))
        print("written:", path)
        return 0
    long_soak = Path(args.out) / "soak-latest.json"
    if long_soak.exists():
        results["soak_long"] = json.loads(long_soak.read_text())
    paths = report_write(results, Path(args.out))
    print(report_markdown(results))
    print("written:", ", ".join(str(path) for path in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
