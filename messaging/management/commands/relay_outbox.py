import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from messaging.relay.relay import relay_outbox_sweep


class Command(BaseCommand):
    help = (
        "Publish what is waiting in the outbox: once (--once), or in a loop. Beat's sweep on the "
        "relay worker does the same every few seconds; this is for a shell, a drill, or a cron."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="one sweep, then exit")
        parser.add_argument(
            "--interval",
            type=float,
            default=2.0,
            help="seconds between sweeps, unless one ran out of time on a backlog (default 2)",
        )

    def handle(self, *args: Any, once: bool, interval: float, **options: Any) -> None:
        while True:
            report = relay_outbox_sweep()
            if report.published or report.failed or once:
                self.stdout.write(f"published {report.published}, failed {report.failed}")
            if once:
                return
            if not report.out_of_time:  # a backlog is drained without a pause every 4 s
                time.sleep(interval)
