import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from operations.dead_letters.reader import DeadLetterReader
from operations.trace import event_trace


class Command(BaseCommand):
    help = "Print the whole path of one event (by event id) or of all events of an order (by order id)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("identifier", help="an event id or an order id")
        parser.add_argument(
            "--no-broker", action="store_true", help="do not look into the dead-letter queues"
        )

    def handle(self, *args: Any, identifier: str, no_broker: bool, **options: Any) -> None:
        try:
            wanted = uuid.UUID(identifier)
        except ValueError as exc:
            raise CommandError(f"{identifier!r} is not an event id or an order id (a UUID).") from exc
        steps = event_trace(
            wanted, dead_letter_event_ids=set() if no_broker else self._in_dead_letter_queues()
        )
        if not steps:
            raise CommandError(f"No event and no order has the id {wanted}.")
        for step in steps:
            self.stdout.write(f"{step.at:%Y-%m-%d %H:%M:%S.%f}"[:-3] + f"  {step.what}")

    def _in_dead_letter_queues(self) -> set[uuid.UUID]:
        try:
            with DeadLetterReader() as reader:
                return {letter.event_id for letter in reader.fetch() if letter.event_id}
        except Exception as exc:
            self.stderr.write(f"(could not look into the dead-letter queues: {exc})")
            return set()
