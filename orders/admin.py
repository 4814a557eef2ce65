import json

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from infra.read_only_admin import ReadOnlyInline
from orders.models import Order, OrderVersion


class OrderVersionInline(ReadOnlyInline):
    """What was bought, each version as the shop sent it: read-only, as the versions are."""

    model = OrderVersion
    fields = readonly_fields = ("number", "total_minor", "created_at", "content_shown")
    ordering = ["number"]

    @admin.display(description="content")
    def content_shown(self, version: OrderVersion) -> str:
        return format_html("<pre>{}</pre>", json.dumps(version.content, indent=2, ensure_ascii=False))


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ["id", "number", "customer_email", "amount", "currency", "status", "version", "created_at"]
    list_filter = ["status", "currency"]
    search_fields = ["id", "number", "customer_email"]
    readonly_fields = [field.name for field in Order._meta.fields]
    inlines = [OrderVersionInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # orders come in through the API, which writes their events too
