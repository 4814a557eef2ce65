"""The mail provider's circuit breaker, for operators:

  manage.py provider status            where it stands, and how many emails wait for it
  manage.py provider pause --reason "Resend maintenance 02:00-03:00 UTC"
  manage.py provider resume

A pause stops every worker's calls on every host (emails wait, nothing is lost, their retry
budgets do not run); resume lets them go. Both are recorded under the operating-system user.
"""

import getpass
import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications.selectors import provider_circuit_status
from operations.mail_provider.pause import CircuitRefused, provider_pause, provider_resume


class Command(BaseCommand):
    help = "Pause, resume or show the mail provider's circuit breaker (shared by every worker)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("verb", choices=["status", "pause", "resume"])
        parser.add_argument("--reason", default="", help="why (required to pause)")
        parser.add_argument("--actor", help="who (default: the operating-system user)")
        parser.add_argument("--json", action="store_true", help="status as JSON")

    def handle(self, *args: object, **options: object) -> None:
        provider = settings.MAIL_PROVIDER
        actor = str(options.get("actor") or getpass.getuser())
        reason = str(options["reason"])
        try:
            if options["verb"] == "pause":
                self.stdout.write(provider_pause(provider=provider, actor_name=actor, reason=reason))
            elif options["verb"] == "resume":
                self.stdout.write(provider_resume(provider=provider, actor_name=actor, reason=reason))
        except CircuitRefused as exc:
            raise CommandError(f"Refused, nothing changed: {exc}") from exc
        status = provider_circuit_status(provider)
        if options["json"]:
            self.stdout.write(json.dumps({**status.__dict__, "describe": status.describe()}, default=str))
            return
        self.stdout.write(status.describe())
        if status.waiting_emails:
            self.stdout.write(f"{status.waiting_emails} email(s) wait for it.")
