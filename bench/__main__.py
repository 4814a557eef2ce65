"""`make bench` (python -m bench): the price of the guarantees, side by side in one run.
Writes bench/results/bench-latest.json, bench-latest.md and latency.png; prints the table."""

import argparse
import os
import sys
import tempfile
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--load-seconds", type=float, default=10.0, help="length of each load phase")
    parser.add_argument("--soak-seconds", type=float, default=float(os.environ.get("SOAK", "180")))
    parser.add_argument("--out", default="bench/results")
    args = parser.parse_args(argv)

    from bench.report import report_markdown, report_write
    from bench.runner import BenchRun

    results = BenchRun(
        Path(tempfile.mkdtemp(prefix="bench-")),
        repeats=args.repeats,
        load_seconds=args.load_seconds,
        soak_seconds=args.soak_seconds,
    ).run()
    paths = report_write(results, Path(args.out))
    print(report_markdown(results))
    print("written:", ", ".join(str(path) for path in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
