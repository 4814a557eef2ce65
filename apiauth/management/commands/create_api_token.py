import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apiauth.services import (
    ClientMismatch,
    TokenNameTaken,
    UnknownTokenName,
    api_token_create,
    api_token_replace,
)


class Command(BaseCommand):
    help = (
        "Create an API token for the order API and print it (it is shown only this once). It speaks "
        "for a new client, or with --successor-of for that name's client, whose orders it reaches."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="who or what uses the token, e.g. 'checkout-service-2026-12'")
        how = parser.add_mutually_exclusive_group()
        how.add_argument(
            "--successor-of",
            metavar="OLD_NAME",
            help="a rotation: the new token speaks for OLD_NAME's client and reaches its orders; "
            "revoke OLD_NAME once the client uses the new token",
        )
        how.add_argument(
            "--replace",
            action="store_true",
            help="revoke the active tokens with this name and make one for the same client, at once "
            "(used for the development token)",
        )

    def handle(self, *args: Any, name: str, successor_of: str | None, replace: bool, **options: Any) -> None:
        try:
            if replace:
                token, raw, revoked = api_token_replace(name=name, actor_name=getpass.getuser())
                if revoked:
                    self.stderr.write(f"Revoked {revoked} earlier token(s) named {name!r}.")
            else:
                token, raw = api_token_create(name=name, successor_of=successor_of)
        except (UnknownTokenName, TokenNameTaken, ClientMismatch) as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"The token speaks for client {token.client}.")
        self.stdout.write(raw)
