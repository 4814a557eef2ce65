from typing import Any

from django.core.management.base import BaseCommand, CommandError

from infra.postgres import database_ensure


class Command(BaseCommand):
    help = "Create the configured PostgreSQL database if it does not exist (development and CI)."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            created = database_ensure()
        except Exception as exc:
            raise CommandError(f"Could not reach PostgreSQL to create the database: {exc}") from exc
        self.stdout.write("database created" if created else "database exists")
