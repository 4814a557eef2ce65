"""Move the stored keyed hashes of addresses to the current PERSONAL_DATA_HASH_KEY (and to the
normalised form of internationalised domains), after a rotation of the key:

  manage.py personal_data_rehash --dry-run   # what it would move, and what it cannot
  manage.py personal_data_rehash             # move them

Safe to run again and beside the running service (short batches). What it cannot move (a hash
whose address this service no longer holds) is counted: see docs/security.md, "Rotating
credentials", for when PERSONAL_DATA_HASH_KEY_PREVIOUS may be unset.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from privacy.rehash import hashes_rehash


class Command(BaseCommand):
    help = "Move the stored keyed hashes of addresses to the current PERSONAL_DATA_HASH_KEY."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="count what would move; change nothing")

    def handle(self, *args: object, **options: object) -> None:
        dry_run = bool(options["dry_run"])
        done = hashes_rehash(dry_run=dry_run)
        verb = "would move" if dry_run else "moved"
        for name, count in sorted(done.moved.items()):
            self.stdout.write(f"{verb} {count} row(s) of {name} to the current key")
        if not done.moved:
            self.stdout.write(f"{verb} nothing: every hash whose address is held is under the current key")
        left = sum(done.only_hashed.values())
        if left:
            kept = "set" if settings.PERSONAL_DATA_HASH_KEY_PREVIOUS else "not set"
            self.stdout.write(
                f"{left} row(s) hold only a hash, whose address no row holds "
                f"({', '.join(f'{name}: {n}' for name, n in sorted(done.only_hashed.items()))}). "
                "Those made under the previous key match only while PERSONAL_DATA_HASH_KEY_PREVIOUS "
                f"is set (it is {kept}); each moves once its address is held again and this runs again."
            )
