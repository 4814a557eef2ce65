"""`make drill-restore` (python -m tools.drill.restore): a real database restore, and the runbook's
steps after it (docs/operations.md, "After a database restore to an earlier point").

The stack of the fault drill takes a steady stream of orders; part-way, `pg_dump -Fc` of its
database while the orders flow; more orders; every email final; the workers stop and a few more
orders are placed, whose events stay in the broker; the product stops (the mail simulator, which
plays the provider and remembers its idempotency keys, and the broker keep running);
`pg_restore --clean --if-exists` into the same database; then the runbook: `manage.py reconcile
--after-restore`, start the processes, `manage.py reconcile --repair --stuck-after 1m`, settle.
Exit status 0 when the verdict is PASSED, 1 when FAILED or INCOMPLETE.
"""

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tools.drill.load import api_throttle_rate_for
from tools.drill.restore_numbers import RestoreNumbersEvidence
from tools.drill.restore_parts import (
    HOLD_LEAD_SECONDS,
    DumpAt,
    Steps,
    TimedOrderStream,
    order_ids,
    restore_dead_lettered_orders,
    settled,
    sim_messages,
    sim_requests,
    wait_until,
)
from tools.drill.restore_report import (
    RestoreReport,
    restore_report_build,
    restore_report_markdown,
    restore_report_write,
)
from tools.drill.restore_runbook import AfterRestore, restore_and_runbook
from tools.drill.restore_verdict import RestoreEvidence
from tools.drill.restore_void import invoice_numbers_read
from tools.drill.stack import DrillStack
from tools.drill.verdict import unfinished_counts


@dataclass
class RestoreConfig:
    orders: int = 300
    rate: float = 25.0  # orders per second offered
    dump_at: float = 0.5  # share of the stream after which pg_dump runs
    provider_hold: float = 0.5  # seconds each send waits at the provider around the dump (0: none)
    queued_at_stop: int | None = None  # orders placed with the workers stopped; None: 5 %, at least 3
    workers: int = 2
    relays: int = 2
    settle_timeout: float = 240.0
    seed: int = 42
    workdir: Path | None = None
    skip_void: bool = False  # the counter-proof: leave out the runbook's step 4 (the verdict must fail)

    @property
    def tail_orders(self) -> int:
        return self.queued_at_stop if self.queued_at_stop is not None else max(3, self.orders // 20)


def restore_drill_run(config: RestoreConfig) -> RestoreReport:
    steps = Steps()
    workdir = config.workdir or Path(tempfile.mkdtemp(prefix="drill-restore-"))
    stack = DrillStack(
        workdir=workdir,
        api_throttle_rate=api_throttle_rate_for(config.rate),
        workers=config.workers,
        relays=config.relays,
    )
    try:
        with steps.step("start the stack (its own database and RabbitMQ node, bin/* processes)"):
            stack.start()
        stream, dump = _orders_with_a_dump(stack, config, steps, workdir / "orders.dump")
        with steps.step("wait until every email is final") as row:
            settled_before = wait_until(
                lambda: settled(stack.database_dsn, stack.rabbit.url), config.settle_timeout
            )
            row["note"] = "settled" if settled_before else f"not settled in {config.settle_timeout:.0f} s"
        tail = _orders_left_in_the_broker(stack, config, steps)
        with steps.step("stop web, relays and beat (the simulator and the broker keep running)") as row:
            row["note"] = ", ".join(stack.stop_app())
            messages_before = sim_messages(stack.mailsim_url)
            requests_before = len(sim_requests(stack.mailsim_url))
        customer_of = stream.result.accepted | tail.result.accepted
        after = restore_and_runbook(stack, config, steps, dump, customer_of)
        evidence = RestoreEvidence(
            messages_before=messages_before,
            messages=sim_messages(stack.mailsim_url),
            requests_after=sim_requests(stack.mailsim_url)[requests_before:],
            placed_before_dump={o for o, at in stream.accepted_at.items() if at < dump.started_at},
            placed_after_dump={o for o, at in stream.accepted_at.items() if at >= dump.started_at},
            queued_at_stop=set(tail.result.accepted),
            restored_orders=order_ids(stack.database_dsn),
            dead_lettered_orders=restore_dead_lettered_orders(stack.database_dsn),
            customer_of=customer_of,
        )
        return restore_report_build(
            config,
            steps,
            stack,
            evidence,
            _numbers_evidence(stack, evidence, dump, after),
            loads=(stream.result, tail.result, after.stream.result),
            dump=dump,
            settled=(settled_before, after.settled),
        )
    finally:
        stack.stop()


def _orders_with_a_dump(
    stack: DrillStack, config: RestoreConfig, steps: Steps, path: Path
) -> tuple[TimedOrderStream, DumpAt]:
    stream = TimedOrderStream(
        stack.web_url, stack.token, orders=config.orders, rate=config.rate, seed=config.seed
    )
    dump = DumpAt(
        stack,
        path,
        stream,
        after_orders=max(1, round(config.orders * config.dump_at)),
        provider_hold=config.provider_hold,
    )
    with steps.step(f"place {config.orders} orders at {config.rate:g}/s; pg_dump -Fc part-way") as row:
        dump.start()
        stream.run()
        dump.join()
        row["note"] = f"placed {len(stream.result.accepted)}"
    if dump.error:
        raise RuntimeError(dump.error)
    steps.rows.append(
        {
            "step": "  pg_dump -Fc (while the orders flowed)",
            "at": round(dump.started_at - steps.wall_started, 1),
            "seconds": round(dump.finished_at - dump.started_at, 1),
            "note": f"{path.stat().st_size} bytes, taken while orders flowed; the provider answered "
            f"{config.provider_hold:g} s late from {HOLD_LEAD_SECONDS:g} s before until the end",
        }
    )
    return stream, dump


def _orders_left_in_the_broker(stack: DrillStack, config: RestoreConfig, steps: Steps) -> TimedOrderStream:
    """The broker does not go back in time with the database: orders placed while the workers
    are stopped leave their events queued, for the after-restore check to find."""
    tail = TimedOrderStream(
        stack.web_url,
        stack.token,
        orders=config.tail_orders,
        rate=config.rate,
        seed=config.seed + 1,
        first_number=config.orders,
    )
    with steps.step(f"stop the workers; place {config.tail_orders} more orders (events stay queued)") as row:
        stack.stop_app(kinds=("worker",))
        tail.run()
        published = wait_until(lambda: unfinished_counts(stack.database_dsn)[1] == 0, 60, interval=0.5)
        row["note"] = f"placed {len(tail.result.accepted)}; outbox published: {published}"
    return tail


def _numbers_evidence(
    stack: DrillStack, evidence: RestoreEvidence, dump: DumpAt, after: AfterRestore
) -> RestoreNumbersEvidence:
    documents, counters, voided = invoice_numbers_read(stack.database_dsn)
    return RestoreNumbersEvidence(
        messages=evidence.messages,
        emailed_at_the_stop=evidence.messages_before,
        dump_started_at=dump.started_at,
        restored_at=after.restored_at,
        series_of=after.series_of,
        counters_at_restore=after.counters_at_restore,
        documents=documents,
        counters=counters,
        voided=voided,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.drill.restore", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--orders", type=int, default=int(os.environ.get("ORDERS", "300")))
    parser.add_argument("--rate", type=float, default=25.0, help="orders per second offered (default 25)")
    parser.add_argument("--dump-at", type=float, default=0.5, help="share of the stream before pg_dump")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--skip-void",
        action="store_true",
        help="the counter-proof: leave out the runbook's step 4 (invoice_numbers_void): it must FAIL",
    )
    parser.add_argument("--out", default="docs/drills", help="where the JSON and Markdown report go")
    args = parser.parse_args(argv)
    if args.orders < 1 or not 0 < args.dump_at < 1:
        parser.error("--orders must be at least 1 and --dump-at between 0 and 1")
    config = RestoreConfig(
        orders=args.orders, rate=args.rate, dump_at=args.dump_at, seed=args.seed, skip_void=args.skip_void
    )
    report = restore_drill_run(config)
    json_path, markdown_path = restore_report_write(report, Path(args.out))
    print(restore_report_markdown(report))
    print(f"report: {json_path}, {markdown_path}")
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
