from django.apps import AppConfig


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = "Messaging: outbox, relay, inbox, dead letters"

    def ready(self) -> None:
        from messaging import checks  # noqa: F401 - registers the system checks
