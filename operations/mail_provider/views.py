from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from notifications.sending_now import sending_now
from operations.mail_provider.force import AUTOMATIC, provider_force
from operations.mail_provider.pause import CircuitRefused, provider_pause, provider_resume

PAUSE_PERMISSION = "notifications.pause_provider"


@staff_member_required
@require_http_methods(["GET", "POST"])
def mail_provider(request: HttpRequest) -> HttpResponse:
    """Which provider sends and since when, each provider's circuit in words, and the buttons
    of `manage.py provider pause|resume|use`."""
    may_act = request.user.has_perm(PAUSE_PERMISSION)
    if request.method == "POST":
        if not may_act:
            return HttpResponseForbidden("Only the Notification reviewers may pause or resume the provider.")
        _act(request)
        return redirect("mail_provider")
    now = sending_now()
    circuits = [status for status in (now.first, now.fallback) if status is not None]
    context = {
        **admin.site.each_context(request),
        "title": "Mail provider",
        "now": now,
        "circuits": [(status, "first" if status is now.first else "fallback") for status in circuits],
        "may_act": may_act,
        "automatic": AUTOMATIC,
    }
    return render(request, "operations/mail_provider.html", context)


def _act(request: HttpRequest) -> None:
    """One button: pause or resume a provider, or send through one only (or both again)."""
    actor, reason = request.user.get_username(), request.POST.get("reason", "")
    provider = request.POST.get("provider", settings.MAIL_PROVIDER)
    try:
        if "use" in request.POST:
            said = provider_force(use=request.POST["use"], actor_name=actor, reason=reason)
        elif "pause" in request.POST:
            said = provider_pause(provider=provider, actor_name=actor, reason=reason)
        else:
            said = provider_resume(provider=provider, actor_name=actor, reason=reason)
    except CircuitRefused as exc:
        messages.error(request, f"Refused, nothing changed: {exc}")
        return
    messages.success(request, said)
