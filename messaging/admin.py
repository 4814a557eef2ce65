"""The backbone's records in the admin, read-only: the outbox, the inbox, dead-letter history."""

from django.contrib import admin

from infra.read_only_admin import ReadOnlyAdmin
from messaging.models import DeadLetterRecord, OutboxEvent, ProcessedEvent


@admin.register(DeadLetterRecord)
class DeadLetterRecordAdmin(ReadOnlyAdmin):
    list_display = ["dead_lettered_at", "queue", "event_id", "error_class", "reason", "worker"]
    list_filter = ["queue", "error_class"]
    search_fields = ["event_id", "message_id", "reason"]


@admin.register(OutboxEvent)
class OutboxEventAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "event_type",
        "aggregate_id",
        "created_at",
        "published_at",
        "publish_attempts",
        "last_publish_error",
    ]
    list_filter = ["event_type", ("published_at", admin.EmptyFieldListFilter)]
    search_fields = ["id", "aggregate_id"]


@admin.register(ProcessedEvent)
class ProcessedEventAdmin(ReadOnlyAdmin):
    list_display = ["event_id", "handler", "result", "processed_at"]
    list_filter = ["handler", "result"]
    search_fields = ["event_id"]
