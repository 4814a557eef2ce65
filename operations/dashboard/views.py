from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from operations.dashboard.figures import dashboard_figures

DEAD_LETTERS_URL_NAME = "dead_letters"


@staff_member_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Inside the admin's layout (its navigation and heading), each figure a link to its list."""
    links = {
        "notifications_url": reverse("admin:notifications_notification_changelist"),
        "dead_letters_url": reverse(DEAD_LETTERS_URL_NAME),
    }
    return render(
        request,
        "operations/dashboard.html",
        {**admin.site.each_context(request), **dashboard_figures(), **links},
    )
