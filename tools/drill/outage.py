"""`make drill-outage` (python -m tools.drill.outage): the provider answers 503 to every send for
OUTAGE_MINUTES while orders arrive at a steady rate, through every process of `make run` on
its own database and RabbitMQ node, with the product's real retry clocks (a day's budget,
back-offs up to 30 minutes), not the fault drill's short ones. Then the fault is lifted and
the drill waits until every email is final.

The verdict (tools/drill/outage_verdict.py, docs/drills.md): every order placed; every email sent
(a confirmation skipped only because its order was cancelled before it went out), none failed
or waiting for review, every dead-letter queue empty; the provider saw few requests during
the outage and never more than the sending limit allows after it. Exit status 0 when PASSED.
"""

import argparse
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from tools.drill.harness import wait_until_settled
from tools.drill.load import LoadResult, OrderStream, api_throttle_rate_for
from tools.drill.outage_facts import database_facts, dead_letter_depths, provider_arrivals
from tools.drill.outage_fallback import fallback_facts, outage_latency
from tools.drill.outage_report import OutageReport, outage_report_markdown, outage_report_write
from tools.drill.outage_verdict import CircuitSizes, provider_verdict
from tools.drill.processes import free_port
from tools.drill.report import load_summary
from tools.drill.stack import DrillStack
from tools.drill.verdict import verdict_compute

# The product's defaults (config/settings/pipeline.py) for every clock the fault drill
# shortens (tools/drill/stack.py); 0 retry cap and budget: each event type's own (emails: 30 min
# between tries at most, for a day). tests/unit/test_outage_verdict.py checks they match.
PRODUCTION_SETTINGS = {
    "DELIVERY_RETRY_BASE_DELAY_SECONDS": "5",
    "DELIVERY_RETRY_MAX_DELAY_SECONDS": "0",
    "DELIVERY_RETRY_BUDGET_SECONDS": "0",
    "DELIVERY_MAX_RETRIES": "500",
    "MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS": "5.0",
    "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": "30.0",
    "TASK_SOFT_TIME_LIMIT_SECONDS": "60",
    "TASK_TIME_LIMIT_SECONDS": "75",
    "NOTIFICATION_LEASE_SECONDS": "90",
    "OUTBOX_CLAIM_LEASE_SECONDS": "30",
    "OUTBOX_CONFIRM_TIMEOUT_SECONDS": "10.0",
    "OUTBOX_SWEEP_INTERVAL_SECONDS": "5.0",
    "MAIL_PROVIDER_CIRCUIT_FAILURES": "5",
    "MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS": "30",
    "DELIVERY_BATCH_SIZE": "16",
    "WORKER_CONCURRENCY": "2",
}


# How the first provider fails for the outage's length. "503": after dropping the connection
# of the first ONSET_DROPS sends it accepted (a provider going down seldom says so cleanly:
# those emails' outcomes are unknown), a 503 to everything. "drop": it accepts every send and
# drops the connection before answering, so every outcome is unknown.
ONSET_DROPS = 5
OUTAGE_KINDS = {
    "503": [{"kind": "accept_then_drop", "times": ONSET_DROPS}, {"kind": "503"}],
    "drop": [{"kind": "accept_then_drop"}],
}
FALLBACKS = ("brevo",)  # the fallbacks the drill's second simulator plays (the first is Resend)


@dataclass
class OutageConfig:
    outage_seconds: float = 600.0
    rate: float = 2.0  # orders per second, steady, before, through and after the outage
    before_seconds: float = 60.0  # orders before the provider goes down
    after_seconds: float = 60.0  # and after it is back
    mail_rate_limit: float = 5.0  # MAIL_PROVIDER_RATE_LIMIT, sends per second
    workers: int = 2
    settle_timeout: float = 1800.0  # after the last order: every email final, every webhook in
    seed: int = 16
    workdir: Path | None = None
    fallback: str = ""  # MAIL_PROVIDER_FALLBACK: "brevo" (a simulator of its own), or none
    kind: str = "503"  # OUTAGE_KINDS: how the first provider fails

    @property
    def orders(self) -> int:
        return round(self.rate * (self.before_seconds + self.outage_seconds + self.after_seconds))

    def sizes(self) -> CircuitSizes:
        return CircuitSizes(
            failures=int(PRODUCTION_SETTINGS["MAIL_PROVIDER_CIRCUIT_FAILURES"]),
            open_seconds=float(PRODUCTION_SETTINGS["MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS"]),
            workers=self.workers,
            concurrency=int(PRODUCTION_SETTINGS["WORKER_CONCURRENCY"]),
            batch_size=int(PRODUCTION_SETTINGS["DELIVERY_BATCH_SIZE"]),
        )


def outage_run(config: OutageConfig) -> OutageReport:
    started = time.monotonic()
    stack = DrillStack(
        workdir=config.workdir or Path(tempfile.mkdtemp(prefix="drill-outage-")),
        api_throttle_rate=api_throttle_rate_for(config.rate),
        workers=config.workers,
        extra_env=PRODUCTION_SETTINGS | {"MAIL_PROVIDER_RATE_LIMIT": f"{config.mail_rate_limit:g}"},
        fallback_mailsim_port=free_port() if config.fallback else None,
    )
    others = [stack.fallback_mailsim_url] if config.fallback else []
    try:
        stack.start()
        load, outage = _orders_through_an_outage(stack, config)
        settle_started = time.monotonic()
        settled = wait_until_settled(stack, config.settle_timeout)
        seconds_to_settle = time.monotonic() - settle_started
        verdict = verdict_compute(
            stack.database_dsn, stack.mailsim_url, set(load.accepted), other_providers=others
        )
        facts = database_facts(stack.database_dsn, outage_end=outage[1])
        provider = provider_verdict(
            provider_arrivals(stack.mailsim_url),
            outage=outage,
            rate=config.mail_rate_limit,
            sizes=config.sizes(),
        )
        report = OutageReport(
            config={k: str(v) for k, v in vars(config).items() if k != "workdir"}
            | {"orders": str(config.orders)},
            load=load_summary(load),
            verdict=vars(verdict) | {"problems": verdict.problems[:50], "passed": verdict.passed},
            provider=vars(provider),
            statuses=facts.statuses,
            dead_letters=dead_letter_depths(stack.rabbit.url),
            backlog_at_outage_end=facts.backlog_at_outage_end,
            drain_seconds=facts.drain_seconds,
            settled=settled,
            seconds_to_settle=round(seconds_to_settle, 1),
            seconds_total=round(time.monotonic() - started, 1),
            kind=config.kind,
            latency_before_outage=outage_latency(
                stack.database_dsn, outage=(outage[0] - config.before_seconds, outage[0])
            ),
            latency_during_outage=outage_latency(
                stack.database_dsn, outage=outage, first="resend" if config.fallback else None
            ),
            fallback=_fallback_facts(stack, config, outage_start=outage[0]),
        )
        report.judge(load_complete=load.complete, load_shortfall=load.shortfall())
        return report
    finally:
        stack.stop()


def _fallback_facts(stack: DrillStack, config: OutageConfig, *, outage_start: float) -> dict | None:
    if not config.fallback:
        return None
    facts = fallback_facts(
        stack.database_dsn,
        stack.fallback_mailsim_url,
        first="resend",
        fallback=config.fallback,
        outage_start=outage_start,
    )
    return vars(facts)


def _orders_through_an_outage(
    stack: DrillStack, config: OutageConfig
) -> tuple[LoadResult, tuple[float, float]]:
    """The steady stream in its own thread; the provider down from before_seconds after its
    start for outage_seconds. The outage's times are wall-clock seconds, as the simulator's."""
    stream = OrderStream(stack.web_url, stack.token, orders=config.orders, rate=config.rate, seed=config.seed)
    results: list[LoadResult] = []
    thread = threading.Thread(target=lambda: results.append(stream.run()), name="orders", daemon=True)
    thread.start()
    time.sleep(config.before_seconds)
    faults = f"{stack.mailsim_url}/_sim/faults"
    outage_start = time.time()
    requests.post(faults, json={"rules": OUTAGE_KINDS[config.kind]}, timeout=10).raise_for_status()
    time.sleep(config.outage_seconds)
    requests.delete(faults, timeout=10).raise_for_status()
    outage_end = time.time()
    thread.join()
    return results[0], (outage_start, outage_end)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.drill.outage", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="how long the provider is down (10)")
    parser.add_argument("--rate", type=float, default=2.0, help="orders per second, steady (2)")
    parser.add_argument("--mail-rate-limit", type=float, default=5.0, help="MAIL_PROVIDER_RATE_LIMIT (5)")
    parser.add_argument("--before", type=float, default=60.0, help="seconds of orders before the outage (60)")
    parser.add_argument("--after", type=float, default=60.0, help="seconds of orders after it (60)")
    parser.add_argument(
        "--fallback", default="", choices=["", *FALLBACKS], help="MAIL_PROVIDER_FALLBACK (none)"
    )
    parser.add_argument("--kind", default="503", choices=list(OUTAGE_KINDS), help="how the first fails (503)")
    parser.add_argument("--out", default="docs/drills", help="where outage-<name>.json and .md go")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.rate <= 0 or args.mail_rate_limit <= 0 or min(args.before, args.after) < 0:
        parser.error(
            "--minutes, --rate and --mail-rate-limit must be positive; --before and --after not negative"
        )
    config = OutageConfig(
        outage_seconds=args.minutes * 60,
        rate=args.rate,
        mail_rate_limit=args.mail_rate_limit,
        before_seconds=args.before,
        after_seconds=args.after,
        fallback=args.fallback,
        kind=args.kind,
    )
    report = outage_run(config)
    name = "-".join(
        [
            "latest",
            *([f"fallback-{args.fallback}"] if args.fallback else []),
            *([args.kind] if args.kind != "503" else []),
        ]
    )
    json_path, markdown_path = outage_report_write(report, Path(args.out), name=name)
    print(outage_report_markdown(report))
    print(f"report: {json_path}, {markdown_path}")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
