"""The mail providers' circuit breakers, for operators:

  manage.py provider status            which provider sends and since when, each one's circuit,
                                       and how many emails wait
  manage.py provider pause --reason "Resend maintenance 02:00-03:00 UTC" [--provider NAME]
  manage.py provider resume [--provider NAME]
  manage.py provider use brevo --reason "Resend maintenance"   send through one provider only
  manage.py provider use automatic                               the first, and the fallback while it cannot

A pause stops every worker's calls to that provider on every host (emails wait, or go to the
fallback if one is set and nothing of them may have reached the paused one; nothing is lost,
retry budgets do not run); resume lets them go. `use` pauses the other provider. Each is
recorded under the operating-system user.
"""

import getpass
import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications.sending_now import sending_now
from operations.mail_provider.force import provider_force
from operations.mail_provider.pause import CircuitRefused, provider_pause, provider_resume


class Command(BaseCommand):
    help = "Pause, resume, force or show the mail providers' circuit breakers (shared by every worker)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("verb", choices=["status", "pause", "resume", "use"])
        parser.add_argument("use", nargs="?", help="with `use`: the provider to send through, or automatic")
        parser.add_argument("--provider", help="with pause and resume: which one (default: MAIL_PROVIDER)")
        parser.add_argument("--reason", default="", help="why (required to pause and to force)")
        parser.add_argument("--actor", help="who (default: the operating-system user)")
        parser.add_argument("--json", action="store_true", help="status as JSON")

    def handle(self, *args: object, **options: object) -> None:
        verb = str(options["verb"])
        if (verb == "use") != bool(options["use"]):
            raise CommandError("Name the provider only with `use`: provider use <name|automatic>.")
        actor = str(options.get("actor") or getpass.getuser())
        reason = str(options["reason"])
        try:
            if verb == "use":
                self.stdout.write(provider_force(use=str(options["use"]), actor_name=actor, reason=reason))
            elif verb in ("pause", "resume"):
                provider = str(options.get("provider") or settings.MAIL_PROVIDER)
                act = provider_pause if verb == "pause" else provider_resume
                self.stdout.write(act(provider=provider, actor_name=actor, reason=reason))
        except CircuitRefused as exc:
            raise CommandError(f"Refused, nothing changed: {exc}") from exc
        self._status(as_json=bool(options["json"]))

    def _status(self, *, as_json: bool) -> None:
        now = sending_now()
        circuits = [status for status in (now.first, now.fallback) if status is not None]
        if as_json:
            document = {
                "sending": now.provider,
                "since": now.since,
                "describe": now.describe(),
                "first": {**now.first.__dict__, "describe": now.first.describe()},
                "fallback": {**now.fallback.__dict__, "describe": now.fallback.describe()}
                if now.fallback
                else None,
            }
            self.stdout.write(json.dumps(document, default=str))
            return
        self.stdout.write(now.describe())
        for status in circuits:
            if now.fallback is not None:
                self.stdout.write(f"  {status.describe()}")
            if status.waiting_emails:
                self.stdout.write(f"{status.waiting_emails} email(s) wait for it.")
