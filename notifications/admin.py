"""Read views of the pipeline's tables. The review screen with actions is issue 4's work."""

from django.contrib import admin

from notifications.models import DeliveryAttempt, Notification, OutboxEvent, ProcessedEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class DeliveryAttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    fields = [
        "number",
        "started_at",
        "finished_at",
        "outcome",
        "http_status",
        "error",
        "worker",
        "duration_ms",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ["id", "order", "kind", "status", "attempt_count", "status_changed_at", "last_error"]
    list_filter = ["status", "kind", "error_class"]
    search_fields = ["order__id", "idempotency_key", "provider_message_id"]
    inlines = [DeliveryAttemptInline]


@admin.register(OutboxEvent)
class OutboxEventAdmin(ReadOnlyAdmin):
    list_display = ["id", "event_type", "aggregate_id", "created_at", "published_at", "publish_attempts"]
    list_filter = ["event_type", ("published_at", admin.EmptyFieldListFilter)]
    search_fields = ["id", "aggregate_id"]


@admin.register(ProcessedEvent)
class ProcessedEventAdmin(ReadOnlyAdmin):
    list_display = ["event_id", "handler", "result", "processed_at"]
    list_filter = ["handler", "result"]
    search_fields = ["event_id"]
