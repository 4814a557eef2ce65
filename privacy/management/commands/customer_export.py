"""Everything held about one customer, as one JSON document, by their address:

  manage.py customer_export ada@example.com                    # to standard output
  manage.py customer_export ada@example.com --output ada.json  # to a file (not overwritten)

The document is sent nowhere: the person who asked hands it over (the export is recorded,
without the address). Field names are words, so
the customer can read it as it is.
"""

import getpass
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from privacy.export import AddressRefused, customer_export
from privacy.models import Erasure


class Command(BaseCommand):
    help = "Everything held about one customer (orders, emails, provider records), as one JSON document."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("address", help="the customer's email address (any case)")
        parser.add_argument(
            "--output", help="a file to write (refused if it exists); default: standard output"
        )
        parser.add_argument("--actor", help="who asked for it (default: the operating-system user)")

    def handle(self, *args: object, **options: object) -> None:
        try:
            actor = str(options.get("actor") or getpass.getuser())
            document = customer_export(str(options["address"]), via=Erasure.Via.COMMAND, actor_name=actor)
        except AddressRefused as exc:
            raise CommandError(f"Refused: {exc}") from exc
        text = json.dumps(document, indent=2, ensure_ascii=False, default=str)
        output = options.get("output")
        if not output:
            self.stdout.write(text)
            return
        path = Path(str(output))
        try:
            with path.open("x", encoding="utf-8") as file:  # never over a file that exists
                file.write(text + "\n")
        except OSError as exc:
            raise CommandError(f"Nothing written: {exc}") from exc
        self.stderr.write(f"written: {path} ({len(document['orders'])} order(s))")
