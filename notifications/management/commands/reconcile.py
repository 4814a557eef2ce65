import json
import re
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError

from notifications.operations.reconcile import reconcile_run


class Command(BaseCommand):
    help = (
        "Compare accepted with completed emails and find what is stuck; with --repair, publish "
        "the events of stuck emails again (safe: the inbox and the provider key dedupe)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--repair", action="store_true", help="republish the events of what is stuck")
        parser.add_argument(
            "--stuck-after", default="15m", help="unfinished for longer than this: 15m, 2h, 1d"
        )
        parser.add_argument("--json", action="store_true", help="print the findings as JSON")

    def handle(self, *args, repair: bool, stuck_after: str, json: bool, **options):
        match = re.fullmatch(r"(\d+)([mhd])", stuck_after.strip())
        if not match:
            raise CommandError(f"--stuck-after takes a duration like 15m, 2h or 1d, not {stuck_after!r}.")
        unit = {"m": "minutes", "h": "hours", "d": "days"}[match.group(2)]
        report = reconcile_run(stuck_after=timedelta(**{unit: int(match.group(1))}), repair=repair)
        if json:
            self.stdout.write(_dumps({"findings": report.findings, "repaired": report.repaired}))
        else:
            self.stdout.write(f"{report.summary} (report {report.pk}, shown in the admin)")


def _dumps(value) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)
