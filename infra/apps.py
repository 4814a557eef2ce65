from django.apps import AppConfig


class InfraConfig(AppConfig):
    name = "infra"
    verbose_name = "Infrastructure: provisioning and health"

    def ready(self) -> None:
        from infra import checks, worker_signals  # noqa: F401 - registers the checks, connects the signals
