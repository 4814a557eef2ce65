from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from infra.rabbitmq import RabbitAdmin, user_of, vhost_of


class Command(BaseCommand):
    help = "Create the RabbitMQ vhost of CELERY_BROKER_URL if missing (development and CI)."

    def handle(self, *args: Any, **options: Any) -> None:
        vhost = vhost_of(settings.CELERY_BROKER_URL)
        try:
            RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL).vhost_ensure(
                vhost, user=user_of(settings.CELERY_BROKER_URL)
            )
        except Exception as exc:
            raise CommandError(
                f"Could not create the vhost {vhost!r}: {exc}. Is the management plugin on? "
                "(rabbitmq-plugins enable rabbitmq_management)"
            ) from exc
        self.stdout.write(f"vhost {vhost!r} ready")
