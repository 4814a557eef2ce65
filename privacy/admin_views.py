"""The admin's page "A customer's personal data", for a data protection officer: an address
typed in, then *Export (download JSON)*, everything held about it (privacy/export.py) as a
file to hand over, or *Erase…*, a confirmation that counts what is held and asks for the
address again, then the erasure (privacy/erasure.py), recorded via "admin" under the user's
name and shown with what it changed.

The address travels only in the bodies of POSTs (CSRF-checked), never in a URL: access logs
and proxies keep URLs. Exporting and erasing each need their own permission
(`privacy.export_customer`, `privacy.erase_customer`); other staff get 403 before anything
is read or changed.
"""

import json
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from infra.staff_request import StaffRequest
from privacy.admin_forms import AddressForm, ErasureConfirmForm
from privacy.erasure import AddressRefused, EmailsInFlight, address_checked, customer_erase
from privacy.export import customer_export
from privacy.models import Erasure

TEMPLATES = "privacy"
ERASE, EXPORT = "privacy.erase_customer", "privacy.export_customer"
IN_FLIGHT = "An email of this customer is being sent right now; nothing changed; try again in a minute."
# The export's last part: the erasures already done, which an erasure does not erase.
EARLIER_ERASURES = "erasures of this address's data"


@require_http_methods(["GET", "POST"])
def customer_page(request: StaffRequest, *, model_admin: admin.ModelAdmin) -> HttpResponse:
    """The address and the two buttons. A POST (the button on an order's page) brings the
    address to start from: it fills the form in, and does nothing else."""
    _allowed(request, EXPORT, ERASE)
    return _page(request, model_admin, AddressForm(initial={"address": request.POST.get("address", "")}))


@require_POST
def customer_export_download(request: StaffRequest, *, model_admin: admin.ModelAdmin) -> HttpResponse:
    """The export document as a JSON file, named without the address."""
    _allowed(request, EXPORT)
    form = AddressForm(request.POST)
    if not form.is_valid():
        return _page(request, model_admin, form)
    try:
        document = customer_export(
            form.cleaned_data["address"],
            via=Erasure.Via.ADMIN,
            actor=request.user,
            actor_name=request.user.get_username(),
        )
    except AddressRefused as exc:
        form.add_error("address", str(exc))
        return _page(request, model_admin, form)
    text = json.dumps(document, indent=2, ensure_ascii=False, default=str)
    response = HttpResponse(text + "\n", content_type="application/json; charset=utf-8")
    filename = f"customer-export-{timezone.now():%Y-%m-%d-%H%M%S}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_POST
def customer_erasure(request: StaffRequest, *, model_admin: admin.ModelAdmin) -> HttpResponse:
    """Step one (the page's *Erase…*): what is held, and the address asked for again. Step two
    (the confirmation's button, which sends `retyped`): the erasure, only when the address
    typed again is the same; otherwise the confirmation again, and nothing changed."""
    _allowed(request, ERASE)
    if "retyped" not in request.POST:
        form = AddressForm(request.POST)
        address = _checked(form)
        if address is None:
            return _page(request, model_admin, form)
        return _confirmation(request, model_admin, ErasureConfirmForm(initial={"address": address}), address)
    confirm = ErasureConfirmForm(request.POST)
    address = _checked(AddressForm({"address": request.POST.get("address", "")}))
    if address is None:  # the hidden field was emptied or changed: start again
        return _page(request, model_admin, AddressForm())
    if not confirm.is_valid():
        return _confirmation(request, model_admin, confirm, address)
    try:
        erasure = customer_erase(
            address=address, via=Erasure.Via.ADMIN, actor=request.user, actor_name=request.user.get_username()
        )
    except EmailsInFlight:
        return _confirmation(request, model_admin, confirm, address, error=IN_FLIGHT)
    context = {
        **_context(request, model_admin, "Erased"),
        "erasure": erasure,
        "changed": [(kind.replace("_", " "), count) for kind, count in erasure.changed.items() if count],
    }
    return TemplateResponse(request, f"{TEMPLATES}/customer_erased.html", context)


def _allowed(request: StaffRequest, *permissions: str) -> None:
    """403 unless the user has one of the permissions: checked before the form is read."""
    if not any(request.user.has_perm(permission) for permission in permissions):
        raise PermissionDenied("A customer's personal data is for the Personal data officers group.")


def _checked(form: AddressForm) -> str | None:
    """The address of a valid form, as the services take it; None, with the form's error."""
    if not form.is_valid():
        return None
    try:
        return address_checked(form.cleaned_data["address"])
    except AddressRefused as exc:
        form.add_error("address", str(exc))
        return None


def _page(request: StaffRequest, model_admin: admin.ModelAdmin, form: AddressForm) -> HttpResponse:
    context = {
        **_context(request, model_admin, "A customer's personal data"),
        "form": form,
        "may_export": request.user.has_perm(EXPORT),
        "may_erase": request.user.has_perm(ERASE),
    }
    return TemplateResponse(request, f"{TEMPLATES}/customer.html", context)


def _confirmation(
    request: StaffRequest,
    model_admin: admin.ModelAdmin,
    form: ErasureConfirmForm,
    address: str,
    error: str = "",
) -> HttpResponse:
    """How many of each thing the export holds (not the things), and the erasures done before."""
    document = customer_export(address)
    held = [
        (what, len(value))
        for what, value in document.items()
        if isinstance(value, list) and what != EARLIER_ERASURES
    ]
    context = {
        **_context(request, model_admin, "Erase this customer's personal data?"),
        "form": form,
        "address": address,
        "held": held,
        "earlier": document.get(EARLIER_ERASURES, []),
        "error": error,
    }
    return TemplateResponse(request, f"{TEMPLATES}/customer_erase_confirm.html", context)


def _context(request: StaffRequest, model_admin: admin.ModelAdmin, title: str) -> dict[str, Any]:
    return {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": title,
        "may_see_erasures": model_admin.has_view_permission(request),
    }
