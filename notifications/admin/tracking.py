"""What the providers told us (read-only), and the suppression list, which reviewers can
lift one address at a time (a selection of more is refused), with a comment, audited."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import QuerySet
from django.http import HttpRequest

from infra.address_search_admin import AddressHashSearch
from infra.read_only_admin import ReadOnlyAdmin, ReadOnlyInline
from infra.staff_request import StaffRequest
from notifications.models import ProviderEvent, Suppression
from notifications.tracking.suppression import suppression_lift


@admin.register(ProviderEvent)
class ProviderEventAdmin(ReadOnlyAdmin):
    list_display = ["received_at", "provider", "kind", "notification", "occurred_at", "result"]
    list_filter = ["provider", "kind", "hard_bounce"]
    search_fields = ["provider_event_id", "provider_message_id", "idempotency_key", "notification__order__id"]


class ProviderEventInline(ReadOnlyInline):
    """On the email's page: each event of its sends, those under a key a reviewer replaced too
    (their result says they changed only the history)."""

    model = ProviderEvent
    fields = ("occurred_at", "provider", "kind", "idempotency_key", "recipient", "description", "result")
    readonly_fields = fields
    ordering = ("occurred_at",)
    verbose_name_plural = "what the provider reported (and what each event changed)"


class LiftActionForm(ActionForm):
    comment = forms.CharField(
        required=False, label="Comment (why this address may receive email again)", max_length=2000
    )


@admin.register(Suppression)
class SuppressionAdmin(AddressHashSearch, ReadOnlyAdmin):
    """An address searched for is also found by its keyed hash: a suppression whose address was
    erased still answers "is this address suppressed?"."""

    list_display = [
        "address_shown",
        "reason",
        "detail",
        "created_at",
        "lifted_at",
        "lifted_by",
        "lift_comment",
    ]
    list_filter = ["reason", ("lifted_at", admin.EmptyFieldListFilter)]
    search_fields = ["address"]

    @admin.display(description="address", ordering="address")
    def address_shown(self, suppression: Suppression) -> str:
        return suppression.address or "(erased at its owner's request; still suppressed)"

    action_form = LiftActionForm
    actions = ["lift"]

    def has_lift_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("notifications.lift_suppression")

    @admin.action(
        description="Lift (one address at a time: send to it again; comment required)", permissions=["lift"]
    )
    def lift(self, request: StaffRequest, queryset: QuerySet[Suppression]) -> None:
        """One address per decision, each with its own reason: a whole selection is refused."""
        selected = list(queryset[:2])
        if len(selected) != 1:
            self.message_user(
                request,
                f"Nothing lifted: {queryset.count()} addresses are selected. Lift one address at a time, "
                "with the reason for that address in the comment.",
                messages.ERROR,
            )
            return
        comment = request.POST.get("comment", "")
        if not comment.strip():
            self.message_user(
                request, "Write in the comment why this address may receive email again.", messages.ERROR
            )
            return
        lifted = suppression_lift(suppression_id=selected[0].pk, actor=request.user, comment=comment)
        self.message_user(request, f"{int(lifted)} suppression(s) lifted.", messages.SUCCESS)
