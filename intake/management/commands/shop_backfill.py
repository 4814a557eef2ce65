from datetime import UTC, datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from intake.woocommerce.backfill import BackfillError, shop_backfill
from shops.models import Shop


class Command(BaseCommand):
    help = (
        "Fetch a WooCommerce store's orders modified since a moment from its REST API and receive "
        "each as a webhook's delivery would be: what its webhooks missed becomes its emails. Safe to "
        "run any number of times."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("shop", help="the shop's short name (its webhook address's last part)")
        parser.add_argument(
            "--since",
            required=True,
            help="orders modified after this moment, ISO 8601 (2026-12-01 or 2026-12-01T08:00Z)",
        )

    def handle(self, *args: Any, shop: str, since: str, **options: Any) -> None:
        connected = Shop.objects.filter(slug=shop).first()
        if connected is None:
            known = ", ".join(Shop.objects.values_list("slug", flat=True)) or "none yet"
            raise CommandError(f"No connected shop is called {shop!r} (known: {known}).")
        try:
            moment = datetime.fromisoformat(since)
        except ValueError as exc:
            raise CommandError(
                f"--since takes an ISO 8601 moment such as 2026-12-01T08:00Z, not {since!r}."
            ) from exc
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)

        def progress(page: int, pages: int) -> None:
            self.stderr.write(f"page {page} of {pages}")

        try:
            report = shop_backfill(connected, since=moment, progress=progress)
        except BackfillError as exc:
            raise CommandError(str(exc)) from exc
        outcomes = ", ".join(f"{count} {outcome}" for outcome, count in sorted(report.outcomes.items()))
        self.stdout.write(
            f"{report.orders} orders of {connected.name} modified since {moment.isoformat()}: "
            f"{outcomes or 'none'}."
        )
