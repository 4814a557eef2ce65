"""What people did and what reconcile found: read-only records."""

from django.contrib import admin

from infra.read_only_admin import ReadOnlyAdmin
from notifications.models import OperatorAction, ReconcileReport


@admin.register(OperatorAction)
class OperatorActionAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "actor_name",
        "action",
        "notification",
        "event_id",
        "comment",
        "result",
        "finished_at",
    ]
    list_filter = ["action", "actor_name"]
    search_fields = ["event_id", "notification__order__id", "comment"]


@admin.register(ReconcileReport)
class ReconcileReportAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "summary"]
    readonly_fields = ["started_at", "finished_at", "summary", "findings", "repaired"]
