import json

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html

from infra.read_only_admin import ReadOnlyInline
from orders.models import Order, OrderVersion, Refund, Shipment


class OrderVersionInline(ReadOnlyInline):
    """What was bought, each version as the shop sent it: read-only, as the versions are."""

    model = OrderVersion
    fields = readonly_fields = ("number", "total_minor", "created_at", "content_shown")
    ordering = ["number"]

    @admin.display(description="content")
    def content_shown(self, version: OrderVersion) -> str:
        return format_html("<pre>{}</pre>", json.dumps(version.content, indent=2, ensure_ascii=False))


class ShipmentInline(ReadOnlyInline):
    """Each parcel as the shop announced it; its email is on the notifications' screen."""

    model = Shipment
    fields = readonly_fields = (
        "shop_shipment_id",
        "carrier",
        "tracking_number",
        "tracking_url",
        "lines",
        "created_at",
    )
    ordering = ["created_at"]


class RefundInline(ReadOnlyInline):
    """Each refund, in minor units; one told by the cancellation has no email of its own."""

    model = Refund
    fields = readonly_fields = (
        "shop_refund_id",
        "amount_minor",
        "reason",
        "lines",
        "shipment",
        "in_cancellation",
        "created_at",
    )
    ordering = ["created_at"]


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = ["id", "number", "customer_email", "amount", "currency", "status", "version", "created_at"]
    list_filter = ["status", "currency"]
    search_fields = ["id", "number", "customer_email"]
    readonly_fields = [field.name for field in Order._meta.fields]
    inlines = [OrderVersionInline, ShipmentInline, RefundInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # orders come in through the API, which writes their events too
