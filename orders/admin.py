import json

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from infra.read_only_admin import ReadOnlyAdmin, ReadOnlyInline
from orders.models import Order, OrderVersion, Refund, Shipment, ShipmentEvent, VoidedInvoiceNumbers


class OrderVersionInline(ReadOnlyInline):
    """What was bought, each version as the shop sent it: read-only, as the versions are."""

    model = OrderVersion
    fields = readonly_fields = ("number", "total_minor", "created_at", "content_shown")
    ordering = ["number"]

    @admin.display(description="content")
    def content_shown(self, version: OrderVersion) -> str:
        return format_html("<pre>{}</pre>", json.dumps(version.content, indent=2, ensure_ascii=False))


class ShipmentInline(ReadOnlyInline):
    """Each parcel as the shop announced it, where it stands and the carrier's news of it, with
    what each piece of news did; its emails are on the notifications' screen."""

    model = Shipment
    fields = readonly_fields = (
        "shop_shipment_id",
        "carrier",
        "tracking_number",
        "tracking_url",
        "lines",
        "created_at",
        "progress",
        "progress_at",
        "news_shown",
    )
    ordering = ["created_at"]

    @admin.display(description="the carrier's news")
    def news_shown(self, shipment: Shipment) -> str:
        news = ShipmentEvent.objects.filter(shipment=shipment).order_by("happened_at", "created_at")
        if not news:
            return "none yet"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{} {} ({}): {}{}</li>",
                (
                    (
                        f"{event.happened_at:%Y-%m-%d %H:%M %Z}",
                        event.get_status_display(),
                        event.shop_event_id,
                        f"email {event.email_event}" if event.email_event else event.note,
                        f" — “{event.message}”" if event.message else "",
                    )
                    for event in news
                ),
            ),
        )


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


@admin.register(VoidedInvoiceNumbers)
class VoidedInvoiceNumbersAdmin(ReadOnlyAdmin):
    """The runs of a series' numbers voided after a database restore, with why, who and when:
    where an auditor reads why a series skips numbers. Read-only: a void is made by `manage.py
    invoice_numbers_void` alone, which moves the series' counter past the run under the counter
    row's lock, in the transaction that records it (orders/invoicing/voiding.py); a row added,
    changed or deleted here would explain a gap that is not there, or unexplain one."""

    fields = readonly_fields = ("series", "first", "last", "reason", "voided_by", "voided_at")
    list_display = fields
    list_filter = ["series"]
