"""The "Email" section of the notification page: the email as stored at its first attempt,
or, before that, a preview with today's live templates, clearly labelled as one."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from notifications.content.preview import notification_preview_now
from notifications.content.render import RenderedEmail
from notifications.content.snapshot import snapshot_exists
from notifications.models import EmailTemplateVersion, Notification

SNAPSHOT_PARTS = ["email_text", "email_html"]  # the big columns, kilobytes a row


class NotificationEmailSection(admin.ModelAdmin):
    def get_queryset(self, request: HttpRequest) -> QuerySet[Notification]:
        # The list never shows the email: its parts are left in the database.
        return super().get_queryset(request).defer(*SNAPSHOT_PARTS)

    @admin.display(description="email")
    def email_shown(self, notification: Notification) -> SafeString:
        if set(SNAPSHOT_PARTS) & notification.get_deferred_fields():
            notification.refresh_from_db(fields=SNAPSHOT_PARTS)
        context = _stored(notification) if snapshot_exists(notification) else _preview(notification)
        return mark_safe(render_to_string("admin/operations/review/notification_email.html", context))


def _stored(notification: Notification) -> dict[str, object]:
    return {
        "stored": True,
        "email": RenderedEmail(notification.email_subject, notification.email_text, notification.email_html),
        "rendered_at": notification.email_rendered_at,
        "locale": notification.email_locale,
        "template": template_link(notification.email_template),
        "content_hash": notification.email_content_hash,
    }


def _preview(notification: Notification) -> dict[str, object]:
    preview = notification_preview_now(notification)
    return {"email": preview.email, "error": preview.error, "template": template_link(preview.version)}


def template_link(version: EmailTemplateVersion | None) -> SafeString | str:
    if version is None:
        return "the shipped template"
    url = reverse("admin:notifications_emailtemplateversion_change", args=[version.pk])
    return format_html('<a href="{}">version {} ({})</a>', url, version.number, version.locale)
