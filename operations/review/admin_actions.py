"""The review screen's actions (admin.py): each calls one service of this package
(services.py, resolve.py), the same ones `notification_resolve` and
`replay_dead_letters` use. Only the "Notification reviewers" group (the
`review_notification` permission) may run them, and every run is recorded.

Each notification is sent, published or changed inside the reviewer's request, so an action
takes at most settings.REVIEW_ACTION_MAX_NOTIFICATIONS; a larger selection ("select all"
over a long list) is refused whole, with a message, never cut short silently. The drop-down
says the cap."""

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import QuerySet
from django.http import HttpRequest

from infra.action_limits import capped_description, selection_within_limit
from infra.staff_request import StaffRequest
from notifications.models import Notification
from operations.review.resolve import notification_mark_sent, notification_send_again
from operations.review.services import (
    ReviewRefused,
    notification_assign,
    notification_reject,
    notification_retry,
)


class CommentActionForm(ActionForm):
    """The fields beside the actions' drop-down: what each action needs besides the selection."""

    comment = forms.CharField(
        required=False,
        label="Comment or evidence (to reject, mark sent or send again)",
        max_length=2000,
    )
    new_address = forms.CharField(
        required=False, label="Corrected address (to correct and send)", max_length=254
    )
    accept_second_email_risk = forms.BooleanField(
        required=False,
        label="I accept that the customer may get this email twice (to send again under a new key)",
    )


class ReviewActions(admin.ModelAdmin):
    def has_review_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("notifications.review_notification")

    @admin.action(
        description=capped_description("Retry", "check the order, send again with the same key"),
        permissions=["review"],
    )
    def retry(self, request: StaffRequest, queryset: QuerySet[Notification]) -> None:
        self._each(request, queryset, lambda n: notification_retry(notification=n, actor=request.user))

    @admin.action(
        description=capped_description("Reject with comment", "will not be sent, pending ones too"),
        permissions=["review"],
    )
    def reject_with_comment(self, request: StaffRequest, queryset: QuerySet[Notification]) -> None:
        comment = request.POST.get("comment", "")
        self._each(
            request,
            queryset,
            lambda n: notification_reject(notification=n, actor=request.user, comment=comment),
        )

    @admin.action(
        description=capped_description("Mark as sent", "I checked at the provider, evidence in the comment"),
        permissions=["review"],
    )
    def mark_sent(self, request: StaffRequest, queryset: QuerySet[Notification]) -> None:
        evidence = request.POST.get("comment", "")
        self._each(
            request,
            queryset,
            lambda n: notification_mark_sent(
                notification_id=n.pk,
                actor=request.user,
                actor_name=request.user.get_username(),
                evidence=evidence,
            ),
        )

    @admin.action(
        description=capped_description("Send again under a new key", "may reach the customer twice"),
        permissions=["review"],
    )
    def send_again_under_new_key(self, request: StaffRequest, queryset: QuerySet[Notification]) -> None:
        accepted = request.POST.get("accept_second_email_risk") in ("on", "true", "1")
        self._send_again(request, queryset, accept_second_email_risk=accepted)

    @admin.action(description="Correct the address and send again (one email)", permissions=["review"])
    def correct_address_and_send(self, request: StaffRequest, queryset: QuerySet[Notification]) -> None:
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one email to correct its address.", messages.ERROR)
            return
        address = request.POST.get("new_address", "").strip()
        if not address:
            self.message_user(request, "Write the corrected address first.", messages.ERROR)
            return
        self._send_again(request, queryset, new_address=address)

    def _send_again(self, request: StaffRequest, queryset: QuerySet[Notification], **choice: Any) -> None:
        comment = request.POST.get("comment", "")
        user = request.user
        self._each(
            request,
            queryset,
            lambda n: notification_send_again(
                notification_id=n.pk, actor=user, actor_name=user.get_username(), comment=comment, **choice
            ),
        )

    @admin.action(description=capped_description("Assign to me", "you own them"), permissions=["review"])
    def assign_to_me(self, request: StaffRequest, queryset: QuerySet[Notification]) -> None:
        self._each(request, queryset, lambda n: notification_assign(notification=n, actor=request.user))

    def _each(
        self, request: HttpRequest, queryset: QuerySet[Notification], action: Callable[[Notification], str]
    ) -> None:
        selected = selection_within_limit(self, request, queryset.select_related("order"), "notifications")
        if selected is None:
            return
        done, refused = 0, []
        for notification in selected:
            try:
                action(notification)
                done += 1
            except ReviewRefused as exc:
                refused.append(f"#{notification.pk}: {exc}")
        if done:
            self.message_user(request, f"{done} notification(s) done.", messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.ERROR)
