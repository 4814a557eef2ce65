"""The review screen for notifications that need a person.

The actions are thin (admin_actions.py): each calls one service of services.py or
resolve.py, the same ones `notification_resolve` and `replay_dead_letters` use. Only the
"Notification reviewers" group (the `review_notification` permission) may run them, and
every run is recorded.
"""

from datetime import timedelta
from typing import ClassVar

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.timesince import timesince

from infra.read_only_admin import ReadOnlyAdmin, ReadOnlyInline
from notifications.admin.tracking import ProviderEventInline
from notifications.content.about import notification_about_words
from notifications.models import DeliveryAttempt, Notification, OperatorAction
from operations.review.admin_actions import CommentActionForm, ReviewActions
from operations.review.email_section import NotificationEmailSection
from operations.review.remembered_filters import RememberedFilters


class DeliveryAttemptInline(ReadOnlyInline):
    model = DeliveryAttempt
    fields: ClassVar[tuple[str, ...]] = (
        "number",
        "provider",
        "recipient",
        "started_at",
        "finished_at",
        "outcome",
        "http_status",
        "error",
        "worker",
        "duration_ms",
    )
    readonly_fields = fields
    verbose_name_plural = "attempt history (one row per call to the mail provider)"


class OperatorActionInline(ReadOnlyInline):
    model = OperatorAction
    fields: ClassVar[tuple[str, ...]] = (
        "created_at",
        "actor_name",
        "action",
        "comment",
        "result",
        "finished_at",
    )
    readonly_fields = fields
    verbose_name_plural = "what people did with it"


class AgeFilter(admin.SimpleListFilter):
    title = "age"
    parameter_name = "age"
    BUCKETS = {"hour": ("under 1 hour", timedelta(hours=1)), "day": ("under 1 day", timedelta(days=1))}

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [(key, label) for key, (label, _) in self.BUCKETS.items()] + [("older", "older than 1 day")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Notification]) -> QuerySet[Notification]:
        now = timezone.now()
        value = self.value()
        if value in self.BUCKETS:
            return queryset.filter(status_changed_at__gte=now - self.BUCKETS[value][1])
        if value == "older":
            return queryset.filter(status_changed_at__lt=now - timedelta(days=1))
        return queryset


class NeedsPersonFilter(admin.SimpleListFilter):
    title = "needs a person"
    parameter_name = "needs_person"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "failed or needs review")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Notification]) -> QuerySet[Notification]:
        if self.value() == "yes":
            return queryset.filter(status__in=Notification.NEEDS_PERSON_STATUSES)
        return queryset


@admin.register(Notification)
class NotificationAdmin(RememberedFilters, ReviewActions, NotificationEmailSection, ReadOnlyAdmin):
    list_display = [
        "id",
        "order_short",
        "kind",
        "status_and_reason",
        "delivery_status",
        "attempt_count",
        "age",
        "owner",
    ]
    list_display_links = ["id"]
    list_per_page = 50
    change_list_template = "admin/operations/review/change_list.html"  # badges, and the phone's columns
    list_filter = [
        NeedsPersonFilter,
        "status",
        "delivery_status",
        "kind",
        "provider",
        AgeFilter,
        "error_class",
        "owner",
    ]
    search_fields = ["order__id", "order__customer_email", "idempotency_key", "provider_message_id"]
    ordering = ["-status_changed_at"]
    inlines = [DeliveryAttemptInline, OperatorActionInline, ProviderEventInline]
    action_form = CommentActionForm
    actions = [
        "retry",
        "mark_sent",
        "send_again_under_new_key",
        "correct_address_and_send",
        "reject_with_comment",
        "assign_to_me",
    ]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "order_link",
                    "kind",
                    "about",
                    "status",
                    "reason",
                    "last_error_detail",
                    "error_class",
                    "evidence",
                ]
            },
        ),
        ("Order", {"fields": ["order_summary"]}),
        (
            "Delivery",
            {
                "fields": [
                    "provider",
                    "idempotency_key",
                    "key_version",
                    "provider_message_id",
                    "attempt_count",
                    "first_attempt_at",
                    "delivery_status",
                    "delivery_status_at",
                    "delivery_detail",
                ]
            },
        ),
        ("Review", {"fields": ["owner", "reviewer_comment", "status_changed_at", "created_at", "sent_at"]}),
        ("Email", {"fields": ["email_shown"]}),
    ]
    readonly_fields = [
        "order_link",
        "order_summary",
        "kind",
        "about",
        "status",
        "reason",
        "last_error_detail",
        "error_class",
        "evidence",
        "provider",
        "delivery_status",
        "delivery_status_at",
        "delivery_detail",
        "idempotency_key",
        "key_version",
        "provider_message_id",
        "attempt_count",
        "first_attempt_at",
        "owner",
        "reviewer_comment",
        "status_changed_at",
        "created_at",
        "sent_at",
        "email_shown",
    ]

    @admin.display(description="order")
    def order_link(self, notification: Notification) -> SafeString:
        url = reverse("admin:orders_order_change", args=[notification.order_id])
        return format_html('<a href="{}">{}</a>', url, notification.order_id)

    @admin.display(description="about")
    def about(self, notification: Notification) -> str:
        """The parcel or the refund an email of several per order is about."""
        return notification_about_words(notification)

    @admin.display(description="order")
    def order_summary(self, notification: Notification) -> str:
        order = notification.order
        return f"{order.customer_email}, {order.amount} {order.currency}, {order.status} (v{order.version})"

    @admin.display(description="provider's evidence")
    def evidence(self, notification: Notification) -> str:
        deadline = notification.evidence_deadline
        if notification.status != Notification.Status.NEEDS_REVIEW or deadline is None:
            return "-"
        when = timezone.localtime(deadline).strftime("%Y-%m-%d %H:%M %Z")
        if deadline > timezone.now():
            return (
                f"Waiting until {when} for the provider's delivery event, which would settle this by itself."
            )
        return f"No event from the provider by {when}: check at the provider, then decide."

    @admin.display(description="reason")
    def reason(self, notification: Notification) -> str:
        return notification.last_error or "-"

    @admin.display(description="status and reason", ordering="status")
    def status_and_reason(self, notification: Notification) -> SafeString:
        """A coloured badge, and the reason in words on its own line below it."""
        return format_html(
            '<span class="status-badge status-{}">{}</span><div class="status-reason">{}</div>',
            notification.status,
            notification.get_status_display(),
            notification.last_error,
        )

    @admin.display(description="order")
    def order_short(self, notification: Notification) -> SafeString:
        url = reverse("admin:orders_order_change", args=[notification.order_id])
        order = str(notification.order_id)
        return format_html('<a href="{}" title="{}">{}…</a>', url, order, order[:8])

    @admin.display(description="in this state for", ordering="status_changed_at")
    def age(self, notification: Notification) -> str:
        return timesince(notification.status_changed_at, depth=1)
