from django.apps import AppConfig


class InfraConfig(AppConfig):
    name = "infra"
    verbose_name = "Infrastructure: provisioning and health"

    def ready(self) -> None:
        from infra import worker_signals  # noqa: F401 - connects the Celery signal handlers
