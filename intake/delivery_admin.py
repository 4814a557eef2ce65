"""The platforms' deliveries in the admin: every delivery, read-only, and those a person must
look at (could not be used, or waiting for their order), which can be run again after a fix."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from infra.action_limits import capped_description, selection_within_limit
from infra.read_only_admin import ReadOnlyAdmin
from infra.staff_request import StaffRequest
from intake.models import PlatformDelivery, UnusableDelivery
from intake.receive import delivery_rerun


class DeliveryAdminBase(ReadOnlyAdmin):
    list_display = ["received_at", "shop", "topic", "outcome", "reason_short", "order", "runs"]
    list_filter = ["outcome", "topic", "shop"]
    search_fields = ["event_key", "webhook_id", "platform_order_id", "order__id", "order__number"]
    fields = (
        "shop",
        "topic",
        "event_key",
        "webhook_id",
        "platform_order_id",
        "outcome",
        "reason",
        "order",
        "received_at",
        "applied_at",
        "runs",
        "body",
    )
    readonly_fields = fields
    list_select_related = ["shop", "order"]

    @admin.display(description="reason")
    def reason_short(self, delivery: PlatformDelivery) -> str:
        return delivery.reason if len(delivery.reason) <= 120 else delivery.reason[:119] + "…"


@admin.register(PlatformDelivery)
class PlatformDeliveryAdmin(DeliveryAdminBase):
    """Every delivery, as received and as applied."""


@admin.register(UnusableDelivery)
class UnusableDeliveryAdmin(DeliveryAdminBase):
    """What a person must look at: deliveries that could not be used (the reason says why) and
    those waiting for their order. "Run again" applies them anew, after a fix."""

    actions = ["run_again"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlatformDelivery]:
        outcomes = [PlatformDelivery.Outcome.COULD_NOT_USE, PlatformDelivery.Outcome.WAITING]
        return super().get_queryset(request).filter(outcome__in=outcomes)

    def has_rerun_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("intake.rerun_platformdelivery")

    @admin.action(
        description=capped_description("Run the selected deliveries again", "after a fix"),
        permissions=["rerun"],
    )
    def run_again(self, request: StaffRequest, queryset: QuerySet[PlatformDelivery]) -> None:
        selected = selection_within_limit(self, request, queryset, "deliveries")
        if selected is None:
            return
        outcomes: dict[str, int] = {}
        for delivery_id in (delivery.id for delivery in selected):
            delivery = delivery_rerun(delivery_id, actor=request.user, actor_name=request.user.get_username())
            outcome = delivery.get_outcome_display() if delivery else "applied meanwhile"
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        summary = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
        self.message_user(request, f"Ran again: {summary}.", messages.SUCCESS)
