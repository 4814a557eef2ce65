from django.apps import AppConfig


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = "Messaging: outbox, relay, inbox, dead letters"

    def ready(self) -> None:
        from django.core.signals import request_finished, request_started

        from messaging import checks  # noqa: F401 - registers the system checks
        from messaging.relay.after_answer import request_batch_open, request_batch_publish
        from messaging.worker import key_lookup_plans  # noqa: F401 - connects its worker signal

        # A request's events are published together once its answer is out (after_answer.py).
        request_started.connect(request_batch_open, dispatch_uid="outbox-request-batch-open")
        request_finished.connect(request_batch_publish, dispatch_uid="outbox-request-batch-publish")
