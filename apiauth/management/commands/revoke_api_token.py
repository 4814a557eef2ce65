from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apiauth.services import api_token_revoke_by_name


class Command(BaseCommand):
    help = "Revoke every active API token with the given name."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        revoked = api_token_revoke_by_name(name=name)
        if not revoked:
            raise CommandError(f"No active token is named {name!r}.")
        self.stdout.write(f"Revoked {revoked} token(s) named {name!r}.")
