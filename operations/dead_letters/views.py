"""The "Dead letters" screen of the admin: the messages in the dead-letter queues with their
reasons, and replay / discard on a confirmation page. For the "Notification reviewers"
group (the `review_notification` permission); other staff get 403.

Thin: the services of this package (screen.py, batch.py, replay.py) read, decide and act,
the same ones as `replay_dead_letters`; each replay and discard is recorded with the admin
user who confirmed it.
"""

from collections.abc import Callable
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from infra.staff_request import StaffRequest
from operations.dead_letters.batch import DeadLetterFilter, UnknownQueue
from operations.dead_letters.forms import (
    DISCARD_NEEDS_COMMENT,
    DeadLetterActionForm,
    DeadLetterFilterForm,
)
from operations.dead_letters.screen import (
    BrokerUnreachable,
    dead_letter_page,
    dead_letter_preview,
    dead_letters_act,
)

TEMPLATES = "admin/operations/dead_letters"
View = Callable[[StaffRequest], HttpResponse]


def reviewers_only(view: View) -> View:
    """Staff log in first; among them, only reviewers may see or act (403 otherwise)."""

    def checked(request: StaffRequest) -> HttpResponse:
        if not request.user.has_perm("notifications.review_notification"):
            raise PermissionDenied("The dead letters are for the Notification reviewers group.")
        return view(request)

    checked.__doc__ = view.__doc__
    return staff_member_required(checked)


@require_GET
@reviewers_only
def dead_letters_list(request: StaffRequest) -> HttpResponse:
    form = DeadLetterFilterForm(request.GET)
    context = {**admin.site.each_context(request), "title": "Dead letters", "form": form}
    if form.is_valid():
        context["query"] = urlencode(form.query())
        try:
            context["page"] = dead_letter_page(form.dead_letter_filter(), page=_page_number(request))
        except (BrokerUnreachable, UnknownQueue) as exc:
            context["broker_error"] = str(exc)
    return TemplateResponse(request, f"{TEMPLATES}/list.html", context)


@require_POST
@reviewers_only
def dead_letters_action(request: StaffRequest) -> HttpResponse:
    """First a confirmation page naming how many and what; acting needs its confirm button."""
    filter_form, action = DeadLetterFilterForm(request.POST), DeadLetterActionForm(request.POST)
    if not (filter_form.is_valid() and action.is_valid()):
        for error in [*action.non_field_errors(), *_field_errors(filter_form), *_field_errors(action)]:
            messages.error(request, error)
        return _back_to_list(filter_form)
    flt = action.dead_letter_filter(filter_form.dead_letter_filter())
    if not action.cleaned_data["confirmed"] or action.missing_comment():
        error = DISCARD_NEEDS_COMMENT if action.cleaned_data["confirmed"] else ""
        return _confirmation(request, filter_form, action, flt, error)
    try:
        progress, warnings = dead_letters_act(
            flt,
            action.chosen_verb,
            user=request.user,
            comment=action.cleaned_data["comment"].strip(),
            include_needs_review=action.cleaned_data["include_needs_review"],
        )
    except (BrokerUnreachable, UnknownQueue) as exc:
        messages.error(request, str(exc))
        return _back_to_list(filter_form)
    if progress.matched == 0:
        messages.warning(request, "No dead letter matched any more: nothing done.")
    else:
        messages.success(request, f"{action.chosen_verb.capitalize()}: {progress.summary()}.")
    for warning in warnings:
        messages.warning(request, warning)
    return _back_to_list(filter_form)


def _confirmation(
    request: StaffRequest,
    filter_form: DeadLetterFilterForm,
    action: DeadLetterActionForm,
    flt: DeadLetterFilter,
    error: str,
) -> HttpResponse:
    context = {
        **admin.site.each_context(request),
        "title": f"{action.chosen_verb.capitalize()} dead letters?",
        "filter_form": filter_form,
        "action": action,
        "event_ids": sorted(action.event_ids),
        "error": error,
    }
    try:
        context["preview"] = dead_letter_preview(flt, action.chosen_verb)
    except (BrokerUnreachable, UnknownQueue) as exc:
        context["broker_error"] = str(exc)
    return TemplateResponse(request, f"{TEMPLATES}/confirm.html", context)


def _back_to_list(filter_form: DeadLetterFilterForm) -> HttpResponse:
    query = urlencode(filter_form.query()) if filter_form.is_valid() else ""
    return HttpResponseRedirect(reverse("dead_letters") + (f"?{query}" if query else ""))


def _field_errors(form: DeadLetterFilterForm | DeadLetterActionForm) -> list[str]:
    return [
        f"{name}: {error}" for name, errors in form.errors.items() if name != "__all__" for error in errors
    ]


def _page_number(request: HttpRequest) -> int:
    try:
        return max(1, int(request.GET.get("page", "1")))
    except ValueError:
        return 1
