"""The preview of a version of the invoice template: the sample invoice and credit note
rendered from it as PDFs, by the check a draft passes (documents/template_check.py), or a real
invoice or credit note rendered from it, shown in the page and each opened on its own. Nothing
is stored: a real document's stored PDF stays what it is.

Each PDF is laid out where it is asked for, alone, never by the page that frames it: a layout
of a version takes up to LAYOUT_MAX_WALL_SECONDS, and anyone who may see the versions may ask
for it (a PDF that does not render says why, in the frame)."""

import uuid

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header, urlencode
from django.views.decorators.clickjacking import xframe_options_sameorigin

from notifications.admin.email_template_views import TEMPLATES
from notifications.admin.template_permissions import may_publish
from notifications.content.errors import RenderError
from notifications.content.sources import DOCUMENT_KIND, version_source
from notifications.documents.pdf import CONTENT_TYPE
from notifications.documents.template import document_preview_pdf
from notifications.documents.template_check import document_samples_render
from notifications.models import EmailTemplateVersion
from orders.models import Invoice

# The samples, in the order document_samples_render returns them, with their names in a URL.
SAMPLES = {"invoice": "The sample invoice", "credit_note": "The sample credit note"}
REAL = "document"  # a real one, named by its id in the query string
REAL_DOCUMENT_NEEDS_PERMISSION = (
    "A preview against a real document shows its customer's data: it needs the permission to view invoices."
)


def document_preview_view(
    request: HttpRequest, version: EmailTemplateVersion, *, model_admin: admin.ModelAdmin
) -> HttpResponse:
    document, problem = _real_document(request)
    shown = _shown(version, document) if not problem else []
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "original": version,
        "title": f"Preview of the invoice template ({version.locale}) version {version.number}",
        "document_id": request.GET.get(REAL, "").strip(),
        "document": document,
        "problem": problem,
        "shown": shown,
        "may_publish": may_publish(request, version.kind),
    }
    return TemplateResponse(request, f"{TEMPLATES}/preview_document.html", context)


@xframe_options_sameorigin  # shown in the preview page's frames, never in another site's
def document_preview_pdf_view(
    request: HttpRequest, object_id: int, which: str, *, model_admin: admin.ModelAdmin
) -> HttpResponse:
    version = get_object_or_404(EmailTemplateVersion, pk=object_id, kind=DOCUMENT_KIND)
    if not model_admin.has_view_permission(request, version):
        raise PermissionDenied
    if which not in (*SAMPLES, REAL):
        raise Http404(f"No sample {which!r}: {', '.join(SAMPLES)}, or {REAL}?{REAL}=<id>.")
    document, problem = _real_document(request) if which == REAL else (None, "")
    if which == REAL and document is None:
        return _words(problem or f"Which document? Name it: ?{REAL}=<id>.")
    try:
        pdf = _pdf_of(version, document, which)
    except RenderError as exc:
        return _words(f"This version does not render: {exc}")
    if document is None:
        return _pdf(pdf, f"{which.replace('_', '-')}-sample", version)
    return _pdf(pdf, document.number_text.replace("/", "-"), version)


def _words(text: str) -> HttpResponse:
    return HttpResponse(text, content_type="text/plain; charset=utf-8", status=422)


def _pdf(content: bytes, name: str, version: EmailTemplateVersion) -> HttpResponse:
    response = HttpResponse(content, content_type=CONTENT_TYPE)
    filename = f"preview-{name}-{version.locale}-v{version.number}.pdf"
    response["Content-Disposition"] = content_disposition_header(False, filename) or ""
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _pdf_of(version: EmailTemplateVersion, document: Invoice | None, which: str) -> bytes:
    source = version_source(version)
    if document is None:
        [pdf] = document_samples_render(source, only=list(SAMPLES).index(which))
        return pdf
    return document_preview_pdf(source, document)


def _shown(version: EmailTemplateVersion, document: Invoice | None) -> list[tuple[str, str]]:
    """Each PDF the page frames: its title and its address."""

    def url(which: str) -> str:
        return reverse("admin:notifications_emailtemplateversion_preview_pdf", args=[version.pk, which])

    if document is None:
        return [(label, url(which)) for which, label in SAMPLES.items()]
    query = urlencode({REAL: str(document.pk)})
    return [(f"{document} of order {document.order_id}", f"{url(REAL)}?{query}")]


def _real_document(request: HttpRequest) -> tuple[Invoice | None, str]:
    """The invoice or credit note asked for, or None for the samples; or why it cannot be used."""
    asked = request.GET.get(REAL, "").strip()
    if not asked:
        return None, ""
    if not request.user.has_perm("orders.view_invoice"):
        return None, REAL_DOCUMENT_NEEDS_PERMISSION
    try:
        key = uuid.UUID(asked)
    except ValueError:
        return None, f"{asked!r} is not the id of a document (a UUID, as in its admin page's address)."
    document = Invoice.objects.filter(pk=key).first()
    if document is None:
        return None, f"There is no invoice or credit note {key}."
    return document, ""
