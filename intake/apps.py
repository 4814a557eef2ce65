from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "intake"
    verbose_name = "Shop platforms' deliveries"

    def ready(self) -> None:
        from intake import checks  # noqa: F401  registers the start-up checks
