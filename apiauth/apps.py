from django.apps import AppConfig


class ApiAuthConfig(AppConfig):
    name = "apiauth"
    verbose_name = "API tokens"

    def ready(self) -> None:
        # Imported for what they register: the system checks, the token's OpenAPI security scheme.
        from apiauth import checks, schema  # noqa: F401
