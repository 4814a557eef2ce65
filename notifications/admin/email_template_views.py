"""The pages of a version beyond Django's own: the preview (against the sample order or a
real one), and the Publish and "Back to the shipped template" buttons, which need the
permission to publish the version's kind (template_permissions.py) and call the services of
content/overrides.py."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from notifications.admin.template_permissions import may_publish
from notifications.content.overrides import OverrideRefused, override_publish, override_retire
from notifications.content.preview import PreviewOrderMissing, preview_order, version_preview
from notifications.content.sources import DOCUMENT_KIND
from notifications.models import EmailTemplateVersion
from orders.models import Order

TEMPLATES = "admin/notifications/emailtemplateversion"
REAL_ORDER_NEEDS_PERMISSION = (
    "A preview against a real order shows its customer's data: it needs the permission to view orders."
)


def change_page(version_id: int) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("admin:notifications_emailtemplateversion_change", args=[version_id]))


def version_preview_view(
    request: HttpRequest, object_id: int, *, model_admin: admin.ModelAdmin
) -> HttpResponse:
    version = get_object_or_404(EmailTemplateVersion, pk=object_id)
    if not model_admin.has_view_permission(request, version):
        raise PermissionDenied
    order_id = request.GET.get("order", "").strip()
    order, problem = _preview_order(request, order_id)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": version,
        "title": f"Preview of {version.kind} ({version.locale}) version {version.number}",
        "order_id": order_id,
        "order": order,
        "problem": problem,
        "preview": None if problem else version_preview(version, order),
        "may_publish": may_publish(request, version.kind),
    }
    return TemplateResponse(request, f"{TEMPLATES}/preview.html", context)


def _preview_order(request: HttpRequest, order_id: str) -> tuple[Order | None, str]:
    """The real order asked for, or None for the sample order; or the reason it cannot be used."""
    if not order_id:
        return None, ""
    if not request.user.has_perm("orders.view_order"):
        return None, REAL_ORDER_NEEDS_PERMISSION
    try:
        return preview_order(order_id), ""
    except PreviewOrderMissing as exc:
        return None, str(exc)


@require_POST
def version_publish_view(request: HttpRequest, object_id: int) -> HttpResponse:
    version = get_object_or_404(EmailTemplateVersion, pk=object_id)
    by_name = _publisher_name(request, version)
    try:
        version = override_publish(object_id, by_name=by_name)
    except OverrideRefused as exc:
        messages.error(request, f"Not published: {exc}")
    else:
        messages.success(request, f"Version {version.number} is live: {_users(version)} use it.")
    return change_page(object_id)


@require_POST
def version_retire_view(request: HttpRequest, object_id: int) -> HttpResponse:
    """Back to the shipped template for this version's email and language."""
    version = get_object_or_404(EmailTemplateVersion, pk=object_id)
    by_name = _publisher_name(request, version)
    if version.state != "live":
        messages.error(
            request, f"Version {version.number} is {version.state}, not live: nothing to go back from."
        )
        return change_page(object_id)
    override_retire(kind=version.kind, locale=version.locale, by_name=by_name)
    messages.success(
        request, f"Back to the shipped template: {_users(version)} no longer use version {version.number}."
    )
    return change_page(object_id)


def _users(version: EmailTemplateVersion) -> str:
    """What a live version is used for, from now on."""
    if version.kind == DOCUMENT_KIND:
        return f"invoices and credit notes in {version.locale} rendered from now on"
    return f"new {version.kind} emails in {version.locale}"


def _publisher_name(request: HttpRequest, version: EmailTemplateVersion) -> str:
    """Only someone with the permission for the version's kind publishes or retires it;
    returns their name."""
    if not may_publish(request, version.kind):
        raise PermissionDenied
    return request.user.get_username()
