"""An UPDATE over many rows in short batches, each its own transaction, paced: clearing a large
backlog never holds locks the hot path waits on, never one long transaction that keeps vacuum
from reclaiming what it cleared, and never more than a share of the machine.

The pace is the share of the time the batches may work: 0.2 means a pause four times as long
as each batch took. A batch of large text rows writes its old and new versions to the WAL and
to disk; unpaced, a backlog of 20,000 email snapshots cleared in ten seconds tripled the
commit → sent latency of orders placed meanwhile (docs/performance.md)."""

import time
from typing import Any

from django.db import transaction
from django.db.models import QuerySet


def update_in_batches(
    rows: QuerySet[Any], *, batch_size: int, max_batches: int, pace: float, **values: Any
) -> int:
    """Set `values` on every row of `rows` (which must stop matching a row once it is set, or
    the loop would take the same rows again); returns how many were changed. Rows locked by
    someone else are left for the next run (SKIP LOCKED): a batch never waits."""
    changed = 0
    for _ in range(max_batches):
        started = time.monotonic()
        with transaction.atomic():
            batch = list(rows.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
            if batch:
                changed += rows.model.objects.filter(pk__in=batch).update(**values)
        if len(batch) < batch_size:
            break
        pause_after(time.monotonic() - started, pace)
    return changed


def pause_after(worked_seconds: float, pace: float) -> None:
    """The pause after a batch that took `worked_seconds`, so that batches work `pace` of the time."""
    if 0 < pace < 1:
        time.sleep(worked_seconds * (1 - pace) / pace)
