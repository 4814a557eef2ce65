"""send_test_email: one email rendered from the sample order, through the configured provider,
to an address of your choosing; recorded as an operator action (docs/email-content.md)."""

import getpass
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from notifications.content.email_test_send import SendRefused, email_test_send
from notifications.content.preview_files import email_kinds


class Command(BaseCommand):
    help = (
        'Send ONE test email (subject "[Test] …", the sample order, today\'s live templates) through '
        "the configured provider; exits non-zero unless the provider accepted it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("address", help="where it goes")
        parser.add_argument(
            "--kind", default=email_kinds()[0], help=f"the email kind (default {email_kinds()[0]})"
        )
        parser.add_argument("--locale", help="the language (default: the site's LANGUAGE_CODE)")
        parser.add_argument("--actor", default=None, help="who runs this, for the record (default: OS user)")

    def handle(self, *args: Any, address: str, kind: str, locale: str | None, **options: Any) -> None:
        locale = locale or settings.LANGUAGE_CODE
        actor = options.get("actor") or getpass.getuser()
        try:
            sent = email_test_send(address=address, kind=kind, locale=locale, actor_name=actor)
        except SendRefused as exc:
            raise CommandError(f"Nothing sent: {exc}") from exc
        if not sent.accepted:
            raise CommandError(
                f"{sent.provider} did not accept the test email ({sent.idempotency_key}): {sent.describe()}"
            )
        self.stdout.write(f"Sent through {sent.provider}: {sent.subject}")
        self.stdout.write(f"  to {address}, {kind} ({locale}), key {sent.idempotency_key}")
        self.stdout.write(f"  {sent.describe()}")
