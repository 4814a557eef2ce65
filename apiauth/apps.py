from django.apps import AppConfig


class ApiAuthConfig(AppConfig):
    name = "apiauth"
    verbose_name = "API tokens"

    def ready(self) -> None:
        from apiauth import checks  # noqa: F401 - registers the system checks
