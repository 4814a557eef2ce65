from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from notifications.selectors import provider_circuit_status
from operations.mail_provider.pause import CircuitRefused, provider_pause, provider_resume

PAUSE_PERMISSION = "notifications.pause_provider"


@staff_member_required
@require_http_methods(["GET", "POST"])
def mail_provider(request: HttpRequest) -> HttpResponse:
    """The provider's circuit in words, and the buttons of `manage.py provider pause|resume`."""
    provider = settings.MAIL_PROVIDER
    may_act = request.user.has_perm(PAUSE_PERMISSION)
    if request.method == "POST":
        if not may_act:
            return HttpResponseForbidden("Only the Notification reviewers may pause or resume the provider.")
        actor, reason = request.user.get_username(), request.POST.get("reason", "")
        try:
            if "pause" in request.POST:
                messages.success(request, provider_pause(provider=provider, actor_name=actor, reason=reason))
            else:
                messages.success(request, provider_resume(provider=provider, actor_name=actor, reason=reason))
        except CircuitRefused as exc:
            messages.error(request, f"Refused, nothing changed: {exc}")
        return redirect("mail_provider")
    status = provider_circuit_status(provider)
    context = {
        **admin.site.each_context(request),
        "title": "Mail provider",
        "status": status,
        "may_act": may_act,
        "paused": status.state == "paused",
    }
    return render(request, "operations/mail_provider.html", context)
