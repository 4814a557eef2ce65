"""The restore drill's report: its steps with their times, the counts, the verdict
(docs/drills/restore-latest.json for machines, restore-latest.md for people)."""

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tools.drill.load import LoadResult
from tools.drill.restore_numbers import (
    RestoreNumbersEvidence,
    RestoreNumbersVerdict,
    numbers_shortfalls,
    restore_numbers_verdict,
)
from tools.drill.restore_parts import DumpAt, Steps, lost_cancellations, sent_without_delivery_state
from tools.drill.restore_verdict import RestoreEvidence, RestoreVerdict, restore_verdict
from tools.drill.verdict import Verdict, verdict_compute

if TYPE_CHECKING:
    from tools.drill.restore import RestoreConfig
    from tools.drill.stack import DrillStack


@dataclass
class RestoreReport:
    config: dict
    outcome: str  # PASSED, FAILED (lost, doubled, resent under a new key, unsettled) or INCOMPLETE
    passed: bool
    steps: list[dict]
    counts: dict
    verdict: dict  # tools/drill/restore_verdict.py: keys, resends, orders lost by the restore
    numbers: dict  # tools/drill/restore_numbers.py: the invoice numbers emailed, voided, issued after
    database_verdict: dict  # tools/drill/verdict.py on the restored database: every email final
    problems: list[str]
    lost_by_restore: list[str]  # orders accepted after the dump that the restored database lacks


def restore_report_build(
    config: "RestoreConfig",
    steps: Steps,
    stack: "DrillStack",
    evidence: RestoreEvidence,
    numbers_evidence: RestoreNumbersEvidence,
    *,
    loads: tuple[LoadResult, LoadResult, LoadResult],
    dump: DumpAt,
    settled: tuple[bool, bool],
) -> RestoreReport:
    """`loads`: the stream with the dump, the orders placed with the workers stopped, the paid
    orders placed after the restore."""
    verdict = restore_verdict(evidence)
    numbers = restore_numbers_verdict(numbers_evidence)
    # The restored database, the orders placed after the restore with it, under the main
    # drill's verdict, invoices included: their numbers (with the voided runs), PDFs and sums.
    expected = evidence.placed_before_dump | set(loads[2].accepted)
    database = verdict_compute(stack.database_dsn, stack.mailsim_url, expected, invoices=True)
    outcome, problems = restore_outcome(verdict, numbers, database, evidence, loads=loads, settled=settled)
    return RestoreReport(
        config={k: v for k, v in asdict(config).items() if k != "workdir"}
        | {"tail_orders": config.tail_orders},
        outcome=outcome,
        passed=outcome == "PASSED",
        steps=steps.rows,
        counts=_counts(stack, evidence, verdict, database, loads=loads, dump=dump) | _numbers_counts(numbers),
        verdict=asdict(verdict) | {"problems": verdict.problems[:50]},
        numbers=asdict(numbers) | {"problems": numbers.problems[:50]},
        database_verdict=asdict(database) | {"problems": database.problems[:50]},
        problems=problems[:50],
        lost_by_restore=verdict.lost_by_restore,
    )


def restore_outcome(
    verdict: RestoreVerdict,
    numbers: RestoreNumbersVerdict,
    database: Verdict,
    evidence: RestoreEvidence,
    *,
    loads: tuple[LoadResult, ...],
    settled: tuple[bool, bool],
) -> tuple[str, list[str]]:
    """FAILED when anything was lost, doubled, resent under a new key, an invoice number given
    twice or left unsettled; INCOMPLETE when the drill did less than it was asked to show; else
    PASSED."""
    shortfalls = [
        *(load.shortfall() for load in loads if not load.complete),
        *(["no order was placed before the dump"] if not evidence.placed_before_dump else []),
        *(
            ["no email was in flight at the dump: nothing was resent after the restore"]
            if not verdict.resent
            else []
        ),
        *(["no order was lost by the restore"] if not verdict.lost_by_restore else []),
        *numbers_shortfalls(numbers),
    ]
    problems = [
        *(["the emails did not settle before the stop"] if not settled[0] else []),
        *(["the emails did not settle after the restore"] if not settled[1] else []),
        *verdict.problems,
        # the numbering rule runs in both (invoice_verdict.py's): each of its problems once
        *dict.fromkeys([*numbers.problems, *database.problems]),
    ]
    if not (verdict.passed and numbers.passed and database.passed and all(settled)):
        return "FAILED", shortfalls + problems
    return ("INCOMPLETE" if shortfalls else "PASSED"), shortfalls + problems


def _counts(
    stack: "DrillStack",
    evidence: RestoreEvidence,
    verdict: RestoreVerdict,
    database: Verdict,
    *,
    loads: tuple[LoadResult, LoadResult, LoadResult],
    dump: DumpAt,
) -> dict:
    after_dump = [m for m in evidence.messages_before if _epoch(m["accepted_at"]) >= dump.started_at]
    return {
        "orders_asked": loads[0].orders_asked,
        "orders_placed": len(loads[0].accepted),
        "orders_placed_before_the_dump": len(evidence.placed_before_dump),
        "orders_placed_after_the_dump_started": len(evidence.placed_after_dump),
        "orders_queued_at_the_stop_asked": loads[1].orders_asked,
        "orders_queued_at_the_stop_placed": len(loads[1].accepted),
        "orders_paid_after_the_restore_asked": loads[2].orders_asked,
        "orders_paid_after_the_restore_placed": len(loads[2].paid),
        "orders_in_the_restored_database": len(evidence.restored_orders),
        "orders_after_the_dump_in_the_restored_database": len(
            evidence.placed_after_dump & evidence.restored_orders
        ),
        "orders_lost_by_the_restore": len(verdict.lost_by_restore),
        "orders_lost_by_the_restore_whose_customer_got_their_email_once": verdict.lost_by_restore_with_email,
        "orders_queued_at_the_stop_dead_lettered_restore": verdict.queued_dead_lettered,
        "cancellations_the_restore_lost": len(lost_cancellations(stack.database_dsn, loads[0].cancelled)),
        "emails_accepted_before_the_stop": len(evidence.messages_before),
        "emails_accepted_after_the_dump_started": len(after_dump),
        "emails_resent_after_the_restore": verdict.resent,
        "resends_under_the_original_key": verdict.resent_under_original_key,
        "resends_replayed_by_the_provider": verdict.resent_replayed,
        "emails_first_sent_after_the_restore": verdict.sent_first_after_restore,
        "emails_accepted_in_all": len(evidence.messages),
        "messages_per_key": {str(k): v for k, v in verdict.messages_per_key.items()},
        "keys_delivered_twice": len(verdict.keys_delivered_twice),
        "duplicates_to_a_customer": verdict.duplicates_to_a_customer,
        "lost_emails_of_restored_orders": database.lost,
        "unfinished_emails": database.unfinished,
        "sent_emails_without_a_delivery_state": sent_without_delivery_state(stack.database_dsn),
    }


def _numbers_counts(numbers: RestoreNumbersVerdict) -> dict:
    return {
        "invoice_documents_emailed_before_the_dump": numbers.documents_emailed_before_the_dump,
        "invoice_documents_emailed_after_the_dump_started": numbers.documents_emailed_after_the_dump_started,
        "invoice_numbers_voided": numbers.numbers_voided,
        "invoice_documents_issued_after_the_restore": numbers.documents_issued_after_the_restore,
        "invoice_documents_emailed_after_the_restore": numbers.documents_emailed_after_the_restore,
        "invoice_numbers_given_twice": len(numbers.numbers_given_twice),
    }


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def restore_report_write(report: RestoreReport, directory: Path) -> tuple[Path, Path]:
    """restore-latest.*; the counter-proof's (the void left out) restore-skip-void-latest.*."""
    directory.mkdir(parents=True, exist_ok=True)
    name = "restore-skip-void-latest" if report.config.get("skip_void") else "restore-latest"
    json_path = directory / f"{name}.json"
    json_path.write_text(json.dumps(asdict(report), indent=2, sort_keys=True, default=str) + "\n")
    markdown_path = directory / f"{name}.md"
    markdown_path.write_text(restore_report_markdown(report))
    return json_path, markdown_path


def restore_report_markdown(report: RestoreReport) -> str:
    c = report.counts
    which = " without the void (the counter-proof)" if report.config.get("skip_void") else ""
    lines = [
        f"# Restore drill{which}: {report.outcome}",
        "",
        f"{c['orders_placed']} of {c['orders_asked']} orders placed at {report.config['rate']:g}/s, "
        f"`pg_dump -Fc` after {report.config['dump_at']:.0%} of the stream, "
        f"{c['orders_queued_at_the_stop_placed']} of {c['orders_queued_at_the_stop_asked']} more with "
        "the workers stopped; then the runbook's restore steps (docs/operations.md), and "
        f"{c['orders_paid_after_the_restore_placed']} of {c['orders_paid_after_the_restore_asked']} "
        "orders paid after it.",
        "",
        "| at (s) | step | took (s) | what it said |",
        "|---:|---|---:|---|",
        *(f"| {r['at']} | {r['step'].strip()} | {r['seconds']} | {_cell(r['note'])} |" for r in report.steps),
        "",
        "| | |",
        "|---|---|",
        *(f"| {label.replace('_', ' ')} | {value} |" for label, value in c.items()),
    ]
    lines += _numbers_markdown(report.numbers)
    if report.lost_by_restore:
        lines += ["", "Orders the restore lost (accepted after the dump; enter them again):"]
        lines += [f"- {order_id}" for order_id in report.lost_by_restore]
    if report.problems:
        lines += ["", "Problems:", *(f"- {problem}" for problem in report.problems)]
    return "\n".join(lines) + "\n"


def _numbers_markdown(numbers: dict) -> list[str]:
    """Per series, the runbook's step 4 as asked and as done: the run past the restored counter
    up to the highest number emailed, the runs voided, the numbers issued after the restore."""

    def run(pair: list[int] | None) -> str:
        return "none" if not pair else f"{pair[0]}..{pair[1]}"

    return [
        "",
        "Invoice numbers per series (runbook step 4):",
        "",
        "| series | next number as restored | to void (emailed before the restore) | voided | issued after |",
        "|---|---:|---|---|---|",
        *(
            f"| {series} | {row['restored_counter_next']} | {run(row['to_void'])} | "
            f"{', '.join(map(run, row['voided'])) or 'none'} | {run(row['issued_after_the_restore'])} |"
            for series, row in numbers["series"].items()
        ),
    ]


def _cell(note: str) -> str:
    """One table cell: a command's lines joined with semicolons."""
    return "; ".join(" ".join(line.split()) for line in str(note).splitlines()).replace("|", "/")[:400]
