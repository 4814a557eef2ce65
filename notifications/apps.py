from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"

    def ready(self) -> None:
        from notifications import checks  # noqa: F401 - registers the system checks
        from notifications.tracking.anymail import anymail_tracking_connect

        anymail_tracking_connect()
