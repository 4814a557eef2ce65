from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from messaging.broker.declare import topology_declare


class Command(BaseCommand):
    help = "Declare the exchanges and queues on RabbitMQ (idempotent; run at every deploy)."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            declared = topology_declare(broker_url=settings.CELERY_BROKER_URL)
        except Exception as exc:
            # A changed queue argument makes RabbitMQ refuse (406 PRECONDITION_FAILED): say so.
            raise CommandError(
                f"Could not declare the topology: {exc}. If a queue's arguments changed, the queue "
                "needs a new name; see docs/operations.md."
            ) from exc
        for line in declared:
            self.stdout.write(f"declared {line}")
