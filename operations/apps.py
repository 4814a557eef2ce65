from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "operations"
    verbose_name = "Operations: review, dead letters, reconciliation, the mail provider"
