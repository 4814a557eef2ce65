from django.apps import AppConfig


class IntakeConfig(AppConfig):
    name = "intake"
    verbose_name = "Shop platforms' deliveries"
