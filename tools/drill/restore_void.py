"""The runbook's step 4 in the restore drill (docs/operations.md, "After a database restore to an
earlier point"): with the web still stopped, each series' highest number given out, read from
the provider's log of the emails sent (the simulator's messages, whose PDFs are named by their
numbers), then `manage.py invoice_numbers_void … --dry-run` and again without, as an operator
runs them; and what the restored database holds of the numbers, for the verdict
(restore_numbers.py)."""

from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row

from tools.drill.restore_numbers import VoidAsked, voids_to_ask
from tools.drill.restore_parts import Steps, sim_messages
from tools.drill.stack import DrillStack

# The stack's one API token (DrillStack.start): every order of the drill is its client's, so
# every document is of that client's series (orders/invoicing/numbering.py, series_of).
VOID_STEP = "manage.py invoice_numbers_void --series … --through … --reason …"
_DRILL_SERIES = "SELECT DISTINCT 'client-' || client::text FROM apiauth_apitoken WHERE name = 'drill'"
_DOCUMENTS = "SELECT series, number, kind, pdf_sha256, issued_at FROM orders_invoice"
_COUNTERS = "SELECT series, next_number FROM orders_invoicesequence"
_VOIDED = "SELECT series, first, last FROM orders_voidedinvoicenumbers"


def drill_series(dsn: str) -> str:
    with psycopg.connect(dsn) as connection:
        [(series,)] = connection.execute(_DRILL_SERIES).fetchall()
    return series


def invoice_numbers_read(dsn: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The documents, the counters and the voided runs the database holds, as rows."""
    with psycopg.connect(dsn) as connection, connection.cursor(row_factory=dict_row) as cursor:
        documents, counters, voided = (
            cursor.execute(sql).fetchall() for sql in (_DOCUMENTS, _COUNTERS, _VOIDED)
        )
    return documents, counters, voided


def numbers_void_step(
    stack: DrillStack, steps: Steps, series_of: dict[str, str], *, restore_of: float, skip: bool
) -> dict[str, int]:
    """Void, per series, the numbers emailed past the restored counter (dry run first); the
    counters as the restore left them. `skip`: the counter-proof, the step left out (the
    verdict must then find numbers given twice)."""
    counters = {row["series"]: row["next_number"] for row in invoice_numbers_read(stack.database_dsn)[1]}
    with steps.step("find each series' highest number emailed (the provider's log of PDFs)") as row:
        asked = voids_to_ask(sim_messages(stack.mailsim_url), counters, series_of)
        said = [_asked_text(void, counters) for void in asked]
        row["note"] = "; ".join(said) or "no number emailed past a restored counter"
    reason = f"restore of {datetime.fromtimestamp(restore_of, UTC):%Y-%m-%d %H:%M:%S} UTC (drill)"
    for dry_run in (True, False):
        with steps.step(VOID_STEP + (" --dry-run" if dry_run else "") + " (web stopped)") as row:
            if skip:
                row["note"] = "left out: the counter-proof (--skip-void)"
                continue
            said = [stack.manage(*_void_arguments(void, reason, dry_run=dry_run)).strip() for void in asked]
            row["note"] = "; ".join(said) or "nothing to void"
    return counters


def _asked_text(void: VoidAsked, counters: dict[str, int]) -> str:
    restored = "no counter" if void.new_series else f"the restored counter gives {counters[void.series]} next"
    return f"series {void.series}: emailed up to {void.through}, {restored}"


def _void_arguments(void: VoidAsked, reason: str, *, dry_run: bool) -> list[str]:
    return [
        "invoice_numbers_void",
        "--series",
        void.series,
        "--through",
        str(void.through),
        "--reason",
        reason,
        *(["--new-series"] if void.new_series else []),
        *(["--dry-run"] if dry_run else []),
    ]
