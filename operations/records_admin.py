"""What people did: read-only records (every operator action, the addresses corrected and the
keys retired by "send again")."""

from django.contrib import admin

from infra.read_only_admin import ReadOnlyAdmin
from notifications.models import AddressCorrection, OperatorAction, RetiredKey


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


@admin.register(AddressCorrection)
class AddressCorrectionAdmin(ReadOnlyAdmin):
    list_display = ["corrected_at", "order", "previous_address", "new_address", "action"]
    search_fields = ["order__id", "previous_address", "new_address"]


@admin.register(RetiredKey)
class RetiredKeyAdmin(ReadOnlyAdmin):
    """Keys replaced by "send again under a new key"; the provider's late events still match."""

    list_display = ["retired_at", "notification", "version", "key", "first_attempt", "action"]
    search_fields = ["key", "notification__order__id"]
