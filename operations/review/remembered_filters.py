"""Filters that remember: a list opened again (from the menu, a link, after an action on
another page) shows the filters it had last time; "Clear all filters", clicked on the list
itself, clears them for good. Kept in the user's session, per list."""

from typing import Any
from urllib.parse import urlparse

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

# Not filters: the page number and Django's "invalid filter" marker.
NOT_REMEMBERED = ("p", "e")


class RememberedFilters(admin.ModelAdmin):
    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if request.method == "GET":
            key = f"admin-filters:{self.model._meta.label_lower}"
            remembered = request.GET.copy()
            for name in NOT_REMEMBERED:
                remembered.pop(name, None)
            if remembered:
                request.session[key] = remembered.urlencode()
            elif _from_elsewhere(request) and request.session.get(key):
                return HttpResponseRedirect(f"{request.path}?{request.session[key]}")
            else:
                request.session.pop(key, None)  # cleared on the list itself
        return super().changelist_view(request, extra_context)


def _from_elsewhere(request: HttpRequest) -> bool:
    return urlparse(request.META.get("HTTP_REFERER", "")).path != request.path
