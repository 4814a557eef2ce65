"""What the admin screens of the email feature share."""

from typing import Any, TypeVar

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.models import User
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.functional import lazy

RowT = TypeVar("RowT", bound=Model)


class StaffRequest(HttpRequest):
    """A request of the admin's: only an authenticated staff user gets past `admin_view`.
    (For the type checker only; the request itself is Django's.)"""

    user: User


class CommentActionForm(ActionForm):
    comment = forms.CharField(
        required=False,
        label="Comment or evidence (to reject, mark sent, send again, or lift a suppression)",
        max_length=2000,
    )
    new_address = forms.CharField(
        required=False, label="Corrected address (to correct and send)", max_length=254
    )
    accept_second_email_risk = forms.BooleanField(
        required=False,
        label="I accept that the customer may get this email twice (to send again under a new key)",
    )


def capped_description(action: str, details: str) -> Any:
    """An action's words with the selection cap, read from the settings when the page is drawn."""
    return lazy(lambda: f"{action} ({details}; at most {selection_limit()} at a time)", str)()


def selection_limit() -> int:
    return int(settings.REVIEW_ACTION_MAX_NOTIFICATIONS)


def selection_within_limit(
    model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[RowT], noun: str
) -> list[RowT] | None:
    """The selected rows, or None (with a message) when there are more than an action takes:
    each row is written inside the person's request, so "select all" over a long list is
    refused whole, never cut short silently."""
    limit = selection_limit()
    selected = list(queryset[: limit + 1])
    if len(selected) <= limit:
        return selected
    model_admin.message_user(
        request,
        f"Nothing done: {queryset.count()} {noun} are selected, and an action takes at most {limit} at "
        "a time (REVIEW_ACTION_MAX_NOTIFICATIONS). Narrow the list with the filters, or select fewer.",
        messages.ERROR,
    )
    return None
