from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations: review, dead letters, reconciliation, the mail provider"

    def ready(self) -> None:
        from operations import checks  # noqa: F401 - registers the system checks
