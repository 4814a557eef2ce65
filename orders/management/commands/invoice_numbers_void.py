"""After a database restore to an earlier point: void the numbers of a series that documents
issued after the restore point already carry, so none is given to a second document
(orders/invoicing/voiding.py; docs/operations.md, "After a database restore to an earlier point").

  manage.py invoice_numbers_void --series api --through 123 --reason "restore of 2026-12-06" --dry-run
  manage.py invoice_numbers_void --series api --through 123 --reason "restore of 2026-12-06"
"""

import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from orders.invoicing.voiding import MAX_VOID_AHEAD, VoidRefused, invoice_numbers_void


class Command(BaseCommand):
    help = (
        "Move an invoice series' counter past --through and record the numbers skipped as voided "
        "(after a database restore, for the numbers documents already emailed carry)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--series", required=True, help='the series: "api", "shop-<id>", "client-<name>"')
        parser.add_argument(
            "--through",
            type=int,
            required=True,
            help=f"the highest number already given out (at most {MAX_VOID_AHEAD} past the counter)",
        )
        parser.add_argument("--reason", default="", help='why, for the auditor: "restore of 2026-12-06"')
        parser.add_argument(
            "--new-series",
            action="store_true",
            help="create the counter of a series the restored database does not know",
        )
        parser.add_argument("--actor", help="who decides (default: the operating-system user)")
        parser.add_argument("--dry-run", action="store_true", help="say what would be voided, change nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            plan = invoice_numbers_void(
                series=options["series"],
                through=options["through"],
                reason=options["reason"],
                actor=options.get("actor") or getpass.getuser(),
                dry_run=options["dry_run"],
                new_series=options["new_series"],
            )
        except VoidRefused as exc:
            raise CommandError(f"Refused, nothing changed: {exc}") from exc
        run = f"{plan.first}" if plan.first == plan.last else f"{plan.first}-{plan.last}"
        done = "would void" if options["dry_run"] else "voided"
        self.stdout.write(
            f"series {plan.series}: {done} number(s) {run}; the next document gets {plan.next_number}"
        )
