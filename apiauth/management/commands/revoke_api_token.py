"""revoke_api_token: every active token of a name stops working at once; each revocation is
recorded with who ran it (the operating-system user, or --actor), as the admin's Revoke
action records the admin user."""

import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apiauth.services import api_token_revoke_by_name


class Command(BaseCommand):
    help = "Revoke every active API token with the given name (recorded with who ran it)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--actor", help="who revokes, for the record (default: the OS user)")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        actor = options.get("actor") or getpass.getuser()
        revoked = api_token_revoke_by_name(name=name, actor_name=actor)
        if not revoked:
            raise CommandError(f"No active token is named {name!r}.")
        self.stdout.write(f"Revoked {revoked} token(s) named {name!r}, recorded as revoked by {actor}.")
