import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from infra.durations import duration_parse
from notifications.models import ReconcileReport
from operations.reconciliation.run import reconcile_run
from operations.restore_check import WorkersRunning, restore_check

LEDGER_ROW = "{:10}  {:18}  {:3}  {:>18}  {:>18}  {:>18}"
DOCUMENT_ROW = "{:10}  {:18}  {:3}  {:>18}  {:>18}"


class Command(BaseCommand):
    help = (
        "Compare accepted with completed emails and find what is stuck; with --repair, publish "
        "the events of stuck emails again (safe: the inbox and the provider key dedupe)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--repair", action="store_true", help="republish the events of what is stuck")
        parser.add_argument(
            "--after-restore",
            action="store_true",
            help="after a database restore, with the workers stopped: move queued events of orders the "
            "database no longer has to the dead-letter queue, publish the outbox, then reconcile",
        )
        parser.add_argument(
            "--stuck-after", default="15m", help="unfinished for longer than this: 15m, 2h, 1d"
        )
        parser.add_argument("--json", action="store_true", help="print the findings as JSON")

    def handle(
        self, *args: Any, repair: bool, stuck_after: str, json: bool, after_restore: bool, **options: Any
    ) -> None:
        if after_restore:
            self._restore_check()
        try:
            stuck = duration_parse(stuck_after)
        except ValueError as exc:
            raise CommandError(f"--stuck-after takes {exc}.") from exc
        report = reconcile_run(stuck_after=stuck, repair=repair)
        if json:
            self.stdout.write(_dumps(_as_json(report)))
        else:
            self._ledger_print(report.ledger)
            self._documents_print(report.findings.get("documents", []))
            self.stdout.write(f"{report.summary} (report {report.pk}, shown in the admin)")

    def _ledger_print(self, ledger: list[dict[str, Any]]) -> None:
        if not ledger:
            self.stdout.write("No orders in the ledger's days.")
            return
        self.stdout.write(LEDGER_ROW.format("DAY", "EMAIL", "CUR", "ACCEPTED", "DONE", "NOT DONE"))
        for row in ledger:
            self.stdout.write(
                LEDGER_ROW.format(
                    row["day"],
                    row["kind"],
                    row["currency"],
                    f"{row['accepted']} ({row['accepted_amount']})",
                    f"{row['done']} ({row['done_amount']})",
                    f"{row['open']} ({row['open_amount']})",
                )
            )

    def _documents_print(self, documents: list[dict[str, Any]]) -> None:
        """The invoices and credit notes issued, per day, kind and currency."""
        if not documents:
            return
        self.stdout.write(DOCUMENT_ROW.format("DAY", "DOCUMENT", "CUR", "ISSUED", "TOTAL"))
        for row in documents:
            self.stdout.write(
                DOCUMENT_ROW.format(row["day"], row["kind"], row["currency"], row["count"], row["total"])
            )

    def _restore_check(self) -> None:
        try:
            result = restore_check()
        except WorkersRunning as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"restore check: {result.messages_checked} queued message(s) checked, "
            f"{len(result.dead_lettered)} of orders not in the database moved to the dead-letter queue, "
            f"{result.events_published} outbox event(s) published, "
            f"{result.in_flight_republished} event(s) of emails in flight at the restore point "
            "published again"
        )


def _as_json(report: ReconcileReport) -> dict[str, Any]:
    open_rows = report.mismatches.filter(resolved_at__isnull=True).select_related("owner")
    return {
        "report": report.pk,
        "findings": report.findings,
        "repaired": report.repaired,
        "ledger": report.ledger,
        "open_mismatches": [
            {
                "problem": row.problem,
                "subject": row.subject,
                "day": row.day.isoformat(),
                "owner": row.owner.get_username() if row.owner else None,
                "due_at": row.due_at.isoformat(),
                "detail": row.detail,
            }
            for row in open_rows
        ],
    }


def _dumps(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)
