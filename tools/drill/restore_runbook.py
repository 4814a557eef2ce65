"""The runbook's steps after the restore drill's `pg_restore` (docs/operations.md, "After a
database restore to an earlier point"), in its order: `manage.py reconcile --after-restore` with
everything stopped; the invoice numbers emailed after the restore point voided (restore_void.py)
before the web starts; the processes started; paid orders placed, their invoices numbered after
every number already emailed; `manage.py reconcile --repair` once the restore point is a minute
old; every email final."""

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.drill.restore_parts import (
    DumpAt,
    PaidOrderStream,
    Steps,
    TimedOrderStream,
    pg_restore,
    queues_ready_empty,
    settled,
    wait_until,
)
from tools.drill.restore_void import drill_series, numbers_void_step
from tools.drill.stack import DrillStack
from tools.drill.verdict import unfinished_counts

if TYPE_CHECKING:
    from tools.drill.restore import RestoreConfig

# The runbook's repair threshold: after a restore every unfinished email dates from before the
# restore point, so one unfinished for a minute with no live lease is stuck.
STUCK_AFTER = "1m"


@dataclass
class AfterRestore:
    """What the runbook's steps left: when pg_restore was done, each series' counter as the
    restore left it, the orders placed after it, and whether every email settled."""

    restored_at: float
    series_of: dict[str, str]  # a customer's address -> the series of their documents
    counters_at_restore: dict[str, int]
    stream: TimedOrderStream
    settled: bool = False


def restore_and_runbook(
    stack: DrillStack, config: "RestoreConfig", steps: Steps, dump: DumpAt, customer_of: dict[str, str]
) -> AfterRestore:
    with steps.step("pg_restore --clean --if-exists --single-transaction into the same database") as row:
        stack.terminate_database_connections()
        row["note"] = pg_restore(stack.database, dump.path)
    restored_at = time.time()
    with steps.step("manage.py reconcile --after-restore (workers stopped)") as row:
        row["note"] = stack.manage("reconcile", "--after-restore").strip()
    series = drill_series(stack.database_dsn)
    series_of = dict.fromkeys(customer_of.values(), series)
    counters = numbers_void_step(stack, steps, series_of, restore_of=dump.started_at, skip=config.skip_void)
    with steps.step("start web, relays, workers and beat"):
        stack.start_app()
    after = AfterRestore(restored_at, series_of, counters, _orders_after_the_restore(stack, config, steps))
    after.series_of |= dict.fromkeys(after.stream.result.accepted.values(), series)
    with steps.step("wait until the queues are worked off") as row:
        row["note"] = str(wait_until(lambda: _queues_and_outbox_done(stack), config.settle_timeout))
    with steps.step(f"wait until the restore point is {STUCK_AFTER} old (the repair's threshold)"):
        time.sleep(max(0.0, dump.started_at + 65 - time.time()))
    with steps.step(f"manage.py reconcile --repair --stuck-after {STUCK_AFTER}") as row:
        row["note"] = stack.manage("reconcile", "--repair", "--stuck-after", STUCK_AFTER).strip()
    with steps.step("wait until every email is final") as row:
        after.settled = wait_until(
            lambda: settled(stack.database_dsn, stack.rabbit.url), config.settle_timeout
        )
        row["note"] = "settled" if after.settled else f"not settled in {config.settle_timeout:.0f} s"
    return after


def _orders_after_the_restore(stack: DrillStack, config: "RestoreConfig", steps: Steps) -> TimedOrderStream:
    """Paid orders with lines once the web is back: documents issued after the restore, whose
    numbers must come after every number already emailed."""
    stream = PaidOrderStream(
        stack.web_url,
        stack.token,
        orders=config.tail_orders,
        rate=config.rate,
        seed=config.seed + 2,
        first_number=config.orders + config.tail_orders,
    )
    with steps.step(f"place {config.tail_orders} more orders, each paid (each issued an invoice)") as row:
        stream.run()
        row["note"] = f"placed {len(stream.result.accepted)}, paid {len(stream.result.paid)}"
    return stream


def _queues_and_outbox_done(stack: DrillStack) -> bool:
    return unfinished_counts(stack.database_dsn)[1] == 0 and queues_ready_empty(stack.rabbit.url)
