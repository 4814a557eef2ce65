import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apiauth.services import (
    ClientMismatch,
    UnknownTokenName,
    api_token_create,
    api_token_revoke_by_name,
)


class Command(BaseCommand):
    help = (
        "Create an API token for the order API and print it (it is shown only this once). It reaches "
        "the orders of the client its name (or --successor-of) already speaks for."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="who or what uses the token, e.g. 'checkout-service'")
        parser.add_argument(
            "--successor-of",
            metavar="OLD_NAME",
            help="a rotation under a new name: the new token speaks for OLD_NAME's client and reaches "
            "its orders; revoke OLD_NAME once the client uses the new token",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="revoke the active tokens with this name first (used for the development token)",
        )

    def handle(self, *args: Any, name: str, successor_of: str | None, replace: bool, **options: Any) -> None:
        if replace:
            revoked = api_token_revoke_by_name(name=name, actor_name=getpass.getuser())
            if revoked:
                self.stderr.write(f"Revoked {revoked} earlier token(s) named {name!r}.")
        try:
            token, raw = api_token_create(name=name, successor_of=successor_of)
        except (UnknownTokenName, ClientMismatch) as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"The token speaks for client {token.client}.")
        self.stdout.write(raw)
