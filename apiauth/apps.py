from django.apps import AppConfig


class ApiAuthConfig(AppConfig):
    name = "apiauth"
    verbose_name = "API tokens"
