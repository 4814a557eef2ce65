"""`make drill` (python -m tools.drill): run a fault drill, write its report, print the table.

Exit status 0 when the verdict is PASSED: the load placed every order it was asked for and
gave up on no request, and nothing was lost or doubled. 1 when it is FAILED or INCOMPLETE.
"""

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the harness is imported late, so `--help` answers without the stack's libraries
    from tools.drill.harness import DrillConfig, DrillReport


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.drill", description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=int(os.environ.get("ORDERS", "1000")))
    parser.add_argument("--rate", type=float, default=25.0, help="orders per second offered (default 25)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--relays", type=int, default=2)
    parser.add_argument("--kill-every", type=float, default=4.0, help="seconds between faults (default 4)")
    parser.add_argument(
        "--cluster",
        type=int,
        default=1,
        help="RabbitMQ nodes (default 1); 3: a cluster whose leader and a follower are killed",
    )
    parser.add_argument(
        "--database",
        choices=("local", "patroni", "patroni-async"),
        default="local",
        help="patroni: on a PostgreSQL cluster of its own (three nodes on Patroni, a synchronous"
        " standby) whose primary crashes twice and freezes once; patroni-async: the same with"
        " asynchronous standbys, the counter-proof (default local: the machine's PostgreSQL)",
    )
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--api-throttle-rate", help="API_THROTTLE_RATE of the drill's stack (default: sized for --rate)"
    )
    parser.add_argument("--out", default="docs/drills", help="where the JSON and Markdown report go")
    parser.add_argument(
        "--hosts",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: the two-host drill, host a's link cut for longer than the lease (docs/drills.md)",
    )
    parser.add_argument("--rate-two-hosts", type=float, default=10.0, help="orders per second with --hosts 2")
    parser.add_argument(
        "--platform",
        choices=("api", "shopify"),
        default="api",
        help="shopify: the orders come from a Shopify shop's webhooks, each 2 to 4 times, out of order",
    )
    args = parser.parse_args(argv)
    if args.hosts == 2 and args.database != "local":
        parser.error("--database: the two-host drill runs on the machine's PostgreSQL only")
    if args.hosts == 2:
        return two_hosts_main(args.orders, args.rate_two_hosts, args.seed, Path(args.out))
    from tools.drill.harness import DrillConfig

    config = DrillConfig(
        orders=args.orders,
        rate=args.rate,
        workers=args.workers,
        relays=args.relays,
        kill_every=args.kill_every,
        seed=args.seed,
        cluster=args.cluster,
        api_throttle_rate=args.api_throttle_rate,
        settle_timeout=max(240.0, args.orders / 10),
        platform=args.platform == "shopify",
        database=args.database,
    )
    _, status = run_and_report(config, Path(args.out))
    return status


def run_and_report(config: "DrillConfig", out: Path) -> tuple["DrillReport", int]:
    """Run the drill, write its report to `out`, print the table: the report and the exit status."""
    from tools.drill.harness import drill_run, report_markdown, report_write

    report = drill_run(config)
    json_path, markdown_path = report_write(report, out, report_name(config))
    print(report_markdown(report))
    print(f"report: {json_path}, {markdown_path}")
    return report, (0 if report.passed else 1)


def report_name(config: "DrillConfig") -> str:
    """A database drill, a cluster drill and a platform drill have their own reports: the
    single node's stays as it was."""
    if config.database != "local":
        return f"{config.database.replace('patroni', 'database')}-latest"
    return "cluster-latest" if config.cluster > 1 else "platform-latest" if config.platform else "latest"


def two_hosts_main(orders: int, rate: float, seed: int, out: Path) -> int:
    import signal

    from tools.drill.two_hosts import TwoHostConfig, two_host_run
    from tools.drill.two_hosts_report import two_host_markdown, two_host_report_write

    # SIGTERM (`timeout`, a CI job cancelled) ends the drill through its `finally`: the
    # namespaces, veths, proxies and processes it made are removed, not left behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    report = two_host_run(TwoHostConfig(orders=orders, rate=rate, seed=seed))
    json_path, markdown_path = two_host_report_write(report, out)
    print(two_host_markdown(report))
    print(f"report: {json_path}, {markdown_path}")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
