"""`make bench` (python -m bench): the price of the guarantees, side by side in one run.
Writes bench/results/bench-latest.json, bench-latest.md and latency.png; prints the table."""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from bench.runner import PHASES, BenchRun


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--load-seconds", type=float, default=10.0, help="length of each load phase")
    parser.add_argument("--soak-seconds", type=float, default=float(os.environ.get("SOAK", "180")))
    parser.add_argument("--out", default="bench/results")
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help="comma-separated subset, for investigating one figure (the report needs all)",
    )
    args = parser.parse_args(argv)
    phases = tuple(phase.strip() for phase in args.phases.split(",") if phase.strip())
    unknown = sorted(set(phases) - set(PHASES))
    if unknown:
        parser.error(f"unknown phase(s) {', '.join(unknown)}; choose from {', '.join(PHASES)}")

    from bench.report import report_markdown, report_write

    results = BenchRun(
        Path(tempfile.mkdtemp(prefix="bench-")),
        repeats=args.repeats,
        load_seconds=args.load_seconds,
        soak_seconds=args.soak_seconds,
        phases=phases,
    ).run()
    if phases != PHASES:
        print(json.dumps(results, indent=2, default=str))
        return 0
    paths = report_write(results, Path(args.out))
    print(report_markdown(results))
    print("written:", ", ".join(str(path) for path in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
