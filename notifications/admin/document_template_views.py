"""The preview of a version of the invoice template: the sample invoice and credit note
rendered from it as PDFs, by the check a draft passes (documents/template_check.py), shown in
the page and each opened on its own. Nothing is stored; no real document is rendered."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.clickjacking import xframe_options_sameorigin

from notifications.admin.email_template_views import TEMPLATES, may_publish
from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, version_source
from notifications.documents.pdf import CONTENT_TYPE
from notifications.documents.template_check import document_samples_render
from notifications.models import EmailTemplateVersion

# The samples, in the order document_samples_render returns them, with their names in a URL.
SAMPLES = {"invoice": "The sample invoice", "credit_note": "The sample credit note"}


def document_preview_view(
    request: HttpRequest, version: EmailTemplateVersion, *, model_admin: admin.ModelAdmin
) -> HttpResponse:
    try:
        document_samples_render(version_source(version))
        problem = ""
    except RenderError as exc:
        problem = str(exc)
    samples = [
        (label, reverse("admin:notifications_emailtemplateversion_preview_pdf", args=[version.pk, which]))
        for which, label in SAMPLES.items()
    ]
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": version,
        "title": f"Preview of the invoice template ({version.locale}) version {version.number}",
        "problem": problem,
        "samples": samples,
        "may_publish": may_publish(request),
    }
    return TemplateResponse(request, f"{TEMPLATES}/preview_document.html", context)


@xframe_options_sameorigin  # shown in the preview page's frames, never in another site's
def document_preview_pdf_view(
    request: HttpRequest, object_id: int, which: str, *, model_admin: admin.ModelAdmin
) -> HttpResponse:
    version = get_object_or_404(EmailTemplateVersion, pk=object_id, kind=DOCUMENT_KIND)
    if not model_admin.has_view_permission(request, version):
        raise PermissionDenied
    if which not in SAMPLES:
        raise Http404(f"No sample {which!r}: {', '.join(SAMPLES)}.")
    try:
        pdfs = document_samples_render(version_source(version))
    except RenderError as exc:
        return HttpResponse(
            f"This version does not render: {exc}", content_type="text/plain; charset=utf-8", status=422
        )
    response = HttpResponse(pdfs[list(SAMPLES).index(which)], content_type=CONTENT_TYPE)
    filename = f"sample-{which.replace('_', '-')}-{version.locale}-v{version.number}.pdf"
    response["Content-Disposition"] = content_disposition_header(False, filename) or ""
    response["X-Content-Type-Options"] = "nosniff"
    return response
