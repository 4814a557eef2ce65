"""How many rows one admin action may take. The review screen's actions, the mismatches'
"Close with comment" and the platform deliveries' "Run again" change each selected row inside
the person's request, so a selection
larger than REVIEW_ACTION_MAX_NOTIFICATIONS is refused whole, never cut short, and the
drop-down says the cap."""

from typing import Any, TypeVar

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils.functional import lazy

RowT = TypeVar("RowT", bound=Model)


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
