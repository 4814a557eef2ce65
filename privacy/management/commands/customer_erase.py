"""Erase one customer's personal data at their request, by their address:

  manage.py customer_erase ada@example.com            # asks you to type the address again
  manage.py customer_erase ada@example.com --yes      # for a script: no question

It cannot be undone, so it asks for the address a second time unless --yes is given (and
without a terminal to ask on, it refuses). An email of the customer being sent right now is
waited for (--wait, up to 120 s by default) and the erasure tried again; what changed is
printed, and the erasure is recorded (privacy.Erasure) under the operating-system user or
--actor, without the address.
"""

import getpass
import sys
import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from privacy.erasure import AddressRefused, EmailsInFlight, customer_erase
from privacy.models import Erasure


class Command(BaseCommand):
    help = "Erase one customer's personal data (orders, emails, provider records) at their request."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("address", help="the customer's email address (any case)")
        parser.add_argument("--yes", action="store_true", help="do not ask to confirm (it cannot be undone)")
        parser.add_argument("--actor", help="who asked for it (default: the operating-system user)")
        parser.add_argument(
            "--wait", type=float, default=120.0, help="seconds to wait for emails being sent (default 120)"
        )

    def handle(self, *args: object, **options: object) -> None:
        address = str(options["address"]).strip()
        if not options["yes"]:
            self._confirm(address)
        actor = str(options.get("actor") or getpass.getuser())
        deadline = time.monotonic() + float(options["wait"])  # type: ignore[arg-type]
        while True:
            try:
                erasure = customer_erase(
                    address=address, via=Erasure.Via.COMMAND, actor=None, actor_name=actor
                )
                break
            except AddressRefused as exc:
                raise CommandError(f"Refused, nothing changed: {exc}") from exc
            except EmailsInFlight as exc:
                if time.monotonic() >= deadline:
                    raise CommandError(f"Nothing changed: {exc} Run it again once they are done.") from exc
                self.stderr.write(f"waiting: {exc}")
                time.sleep(2)
        self._report(erasure)

    def _confirm(self, address: str) -> None:
        if not sys.stdin.isatty():
            raise CommandError("An erasure cannot be undone: confirm it with --yes (no terminal to ask on).")
        typed = input(
            f"Erase every personal data of {address}? It cannot be undone. Type the address again: "
        )
        if typed.strip().lower() != address.lower():
            raise CommandError("Not the same address: nothing changed.")

    def _report(self, erasure: Erasure) -> None:
        changed = {kind: count for kind, count in erasure.changed.items() if count}
        if not changed:
            self.stdout.write(
                f"erasure {erasure.pk}: nothing personal was held about this address (any more)."
            )
            return
        self.stdout.write(f"erasure {erasure.pk} recorded (without the address); rows changed:")
        for kind, count in changed.items():
            self.stdout.write(f"  {kind.replace('_', ' ')}: {count}")
