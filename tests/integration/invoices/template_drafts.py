"""The invoice template through the admin, as an invoice template editor writes it: a draft
posted to the add form (kind invoice_document), the words of the page that refused one, the
shipped template with a change, and a version stored behind the form's back (as an earlier
release, a database edit or an attacker with database access could leave it)."""

from typing import Any

from django.test import Client
from django.utils import timezone

from notifications.content.sources import DOCUMENT_KIND, SHIPPED_DOCUMENT
from notifications.models import EmailTemplateVersion

ADMIN = "/admin/notifications/emailtemplateversion/"
SHIPPED_HTML = SHIPPED_DOCUMENT.read_text()


def draft_post(client: Client, html: str, *, locale: str = "en", comment: str = "a test") -> Any:
    data = {"html": html, "comment": comment}
    return client.post(f"{ADMIN}add/?kind={DOCUMENT_KIND}&locale={locale}", data)


def page_words(response: Any) -> str:
    """The page's text with HTML's quotes unescaped, as a person reads it."""
    return response.content.decode().replace("&#x27;", "'").replace("&quot;", '"').replace("&amp;", "&")


def shipped_with(*, style: str = "", body: str = "") -> str:
    """The shipped template with CSS added to its <style> and markup at the top of its body."""
    html = SHIPPED_HTML.replace("</style>", f"{style}\n</style>", 1)
    return html.replace("<body>", f"<body>\n{body}", 1)


def stored_version(html: str, *, locale: str = "en", published: bool = False) -> EmailTemplateVersion:
    latest = EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND, locale=locale).count()
    return EmailTemplateVersion.objects.create(
        kind=DOCUMENT_KIND,
        locale=locale,
        number=latest + 1,
        subject="",
        text="",
        html=html,
        created_by_name="mallory",
        published_at=timezone.now() if published else None,
    )


# True only for the two samples the admin's check lays out (INV-000042, CN-000043): what an
# editor's template can use to show the samples something real documents never get.
ONLY_THE_SAMPLES = '{% if document.number == "INV-000042" or document.number == "CN-000043" %}'


def draft_published(client: Client, html: str) -> EmailTemplateVersion:
    """The draft saved and made live through the admin, both steps let through by its check."""
    response = draft_post(client, html)
    assert response.status_code == 302, page_words(response)
    version = EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).latest("pk")
    published = client.post(f"{ADMIN}{version.pk}/publish/", follow=True)
    assert f"Version {version.number} is live" in page_words(published)
    return version
