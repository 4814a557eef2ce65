from django.apps import AppConfig


class ObservabilityConfig(AppConfig):
    name = "observability"
    verbose_name = "Observability: metrics, logs, dashboard"

    def ready(self) -> None:
        from observability import worker_signals  # noqa: F401 - connects the Celery signal handlers
