"""An UPDATE over many rows in short batches, each its own transaction, so that clearing a large
backlog never holds locks the hot path waits on, nor one long transaction that keeps vacuum
from reclaiming what it cleared."""

from typing import Any

from django.db import transaction
from django.db.models import QuerySet


def update_in_batches(rows: QuerySet[Any], *, batch_size: int, max_batches: int, **values: Any) -> int:
    """Set `values` on every row of `rows` (which must stop matching a row once it is set, or
    the loop would take the same rows again); returns how many were changed. Rows locked by
    someone else are left for the next run (SKIP LOCKED): a batch never waits."""
    changed = 0
    for _ in range(max_batches):
        with transaction.atomic():
            batch = list(rows.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch_size])
            if batch:
                changed += rows.model.objects.filter(pk__in=batch).update(**values)
        if len(batch) < batch_size:
            break
    return changed
