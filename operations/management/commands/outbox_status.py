import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from operations.status import outbox_status


class Command(BaseCommand):
    help = "Outbox backlog and its oldest event, notifications by status, dead-letter queue depths."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="machine-readable output")

    def handle(self, *args: Any, json: bool, **options: Any) -> None:
        status = outbox_status()
        if json:
            self.stdout.write(_dumps(status))
            return
        self.stdout.write(f"outbox backlog:               {status['outbox_backlog']}")
        self.stdout.write(f"oldest unpublished event:     {_age(status['oldest_unpublished_age_seconds'])}")
        self.stdout.write(
            f"oldest unfinished email:      {_age(status['oldest_unfinished_notification_age_seconds'])}"
        )
        self.stdout.write("notifications by status:")
        for name, count in status["notifications_by_status"].items():
            self.stdout.write(f"  {name:14} {count}")
        self.stdout.write("dead-letter queues:")
        for name, depth in status["dead_letter_queues"].items():
            self.stdout.write(f"  {name:28} {depth}")


def _age(seconds: float | None) -> str:
    return "none" if seconds is None else f"{seconds:.0f} s ago"


def _dumps(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True)
