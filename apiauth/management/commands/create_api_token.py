import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apiauth.services import api_token_create, api_token_revoke_by_name


class Command(BaseCommand):
    help = "Create an API token for the order API and print it (it is shown only this once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="who or what uses the token, e.g. 'checkout-service'")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="revoke the active tokens with this name first (used for the development token)",
        )

    def handle(self, *args: Any, name: str, replace: bool, **options: Any) -> None:
        if replace:
            revoked = api_token_revoke_by_name(name=name, actor_name=getpass.getuser())
            if revoked:
                self.stderr.write(f"Revoked {revoked} earlier token(s) named {name!r}.")
        _, raw = api_token_create(name=name)
        self.stdout.write(raw)
