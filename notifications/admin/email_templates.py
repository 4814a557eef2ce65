"""The customer emails' wording, versioned: a new version starts from the live wording (or
the shipped template), is refused if it does not render, is previewed against the sample
order or a real one, and is published or retired by the "Email editors" group. Versions are
never edited or deleted. The logic is in notifications/content/overrides.py and preview.py;
the preview, publish and retire pages are email_template_views.py. The invoices' and credit
notes' PDF template is versioned here too, as one more kind of its HTML alone, previewed as
the sample invoice's and credit note's PDFs or a real document's (document_template_views.py),
and written and published by the "Invoice template editors" group: who may write or publish
which kind is template_permissions.py."""

from functools import partial
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from infra.staff_request import StaffRequest
from notifications.admin.document_template_views import document_preview_pdf_view, document_preview_view
from notifications.admin.email_template_forms import (
    DOCUMENT_FIELDS,
    TEMPLATE_KINDS,
    DraftForm,
    DraftStartForm,
    draft_start_of,
    template_kind_label,
)
from notifications.admin.email_template_views import (
    TEMPLATES,
    change_page,
    version_preview_view,
    version_publish_view,
    version_retire_view,
)
from notifications.admin.template_permissions import may_publish, may_write, may_write_any
from notifications.content.overrides import override_draft_create
from notifications.content.preview import draft_start, draft_start_label
from notifications.content.sources import DOCUMENT_KIND
from notifications.models import EmailTemplateVersion

EMAIL_ONLY = ("subject", "text")  # the parts the invoice template has not


@admin.register(EmailTemplateVersion)
class EmailTemplateVersionAdmin(admin.ModelAdmin):
    form = DraftForm
    list_display = [
        "kind",
        "locale",
        "number",
        "state",
        "created_by_name",
        "created_at",
        "published_by_name",
        "published_at",
        "retired_by_name",
        "retired_at",
        "comment",
    ]
    list_display_links = ["kind", "number"]
    list_filter = ["kind", "locale"]
    change_form_template = f"{TEMPLATES}/change_form.html"
    shown_fields: list[str | tuple[str, ...]] = [
        ("kind", "locale", "number", "state"),
        "comment",
        ("created_by_name", "created_at"),
        ("published_by_name", "published_at"),
        ("retired_by_name", "retired_at"),
        "subject",
        "text",
        "html",
    ]

    @admin.display(description="state")
    def state(self, version: EmailTemplateVersion) -> str:
        return version.state

    def has_add_permission(self, request: HttpRequest) -> bool:
        return may_write_any(request)  # which kinds: step one offers them, add_view checks

    def has_change_permission(self, request: HttpRequest, obj: EmailTemplateVersion | None = None) -> bool:
        return False  # a change is a new version: the change page is read-only

    def has_delete_permission(self, request: HttpRequest, obj: EmailTemplateVersion | None = None) -> bool:
        return False

    def get_fields(self, request: HttpRequest, obj: EmailTemplateVersion | None = None) -> Any:
        kind = obj.kind if obj is not None else (draft_start_of(request) or ("", ""))[0]
        if kind != DOCUMENT_KIND:
            return DraftForm.Meta.fields if obj is None else self.shown_fields
        if obj is None:  # the invoice template: its HTML alone
            return DOCUMENT_FIELDS
        return [field for field in self.shown_fields if field not in EMAIL_ONLY]

    def get_form(
        self,
        request: HttpRequest,
        obj: EmailTemplateVersion | None = None,
        change: bool = False,
        **kwargs: Any,
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (form,), {"start": draft_start_of(request)})

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, str | list[str]]:
        start = draft_start_of(request)
        if start is None:
            return {}
        kind, locale = start
        origin_id = request.GET.get("from", "")
        origin = (
            EmailTemplateVersion.objects.filter(pk=origin_id, kind=kind, locale=locale).first()
            if origin_id.isdigit()
            else None
        )
        if origin is not None:  # "new version from this one"
            return {"subject": origin.subject, "text": origin.text, "html": origin.html}
        return {**draft_start(kind, locale)}

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        start = draft_start_of(request)
        if start is None:
            return self._draft_start_view(request)
        kind, locale = start
        if not may_write(request, kind):  # the form's GET and its POST alike
            raise PermissionDenied
        origin_id = request.GET.get("from", "")
        context = {
            "title": f"New wording: {template_kind_label(kind)} ({locale})",
            "draft_start": f"version id {origin_id}" if origin_id else draft_start_label(kind, locale),
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
        }
        return super().add_view(request, form_url, {**context, **(extra_context or {})})

    def _draft_start_view(self, request: HttpRequest) -> HttpResponse:
        """Step one: which email and which language (step two is the pre-filled form)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        writable = [(kind, label) for kind, label in TEMPLATE_KINDS if may_write(request, kind)]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "New email wording: which email, which language?",
            "form": DraftStartForm(kinds=writable),
        }
        return TemplateResponse(request, f"{TEMPLATES}/draft_start.html", context)

    def save_form(self, request: StaffRequest, form: Any, change: bool) -> EmailTemplateVersion:  # type: ignore[override]
        # The service creates it (numbered under a lock, rendered once more), never form.save().
        data = form.cleaned_data
        return override_draft_create(
            kind=data["kind"],
            locale=data["locale"],
            subject=data.get("subject", ""),
            text=data.get("text", ""),
            html=data["html"],
            comment=data["comment"],
            author=request.user,
            author_name=request.user.get_username(),
        )

    def save_model(self, request: HttpRequest, obj: EmailTemplateVersion, form: Any, change: bool) -> None:
        pass  # save_form created it

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        pass  # a version has no related rows

    def response_add(
        self, request: HttpRequest, obj: EmailTemplateVersion, post_url_continue: str | None = None
    ) -> HttpResponse:
        self.message_user(request, f"Draft version {obj.number} saved: preview it, then publish it.")
        return change_page(obj.pk)

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: EmailTemplateVersion | None = None,
    ) -> HttpResponse:
        if obj is not None:  # its buttons, by the rights over its kind
            context |= {
                "may_publish": may_publish(request, obj.kind),
                "may_write": may_write(request, obj.kind),
            }
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _preview_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        version = get_object_or_404(EmailTemplateVersion, pk=object_id)
        if version.kind != DOCUMENT_KIND:
            return version_preview_view(request, object_id, model_admin=self)
        if not self.has_view_permission(request, version):
            raise PermissionDenied
        return document_preview_view(request, version, model_admin=self)

    def get_urls(self) -> list[URLPattern]:
        def route(name: str, view: Any) -> URLPattern:
            wrapped = self.admin_site.admin_view(view)
            return path(
                f"<int:object_id>/{name}/", wrapped, name=f"notifications_emailtemplateversion_{name}"
            )

        pdf = self.admin_site.admin_view(partial(document_preview_pdf_view, model_admin=self))
        own = [
            path(
                "<int:object_id>/preview/<str:which>.pdf",
                pdf,
                name="notifications_emailtemplateversion_preview_pdf",
            ),
            route("preview", self._preview_view),
            route("publish", version_publish_view),
            route("retire", version_retire_view),
        ]
        return own + super().get_urls()
