"""The invoice template is a legal record's layout, the emails' wording is not: each has its own
permissions. An email editor may neither write nor publish (nor retire) the invoice template,
an invoice template editor neither the emails' wording, and someone given both does both. Each
refusal is the admin's 403 (or a choice not offered), and nothing is stored or published."""

import pytest
from django.contrib.auth.models import Group, Permission, User

from notifications.content.sources import DOCUMENT_KIND, live_version
from notifications.email_editors import GROUP_NAME as EMAIL_EDITORS
from notifications.email_editors import email_editors_group_ensure
from notifications.invoice_template_editors import GROUP_NAME as INVOICE_EDITORS
from notifications.models import EmailTemplateVersion
from tests.factories import published_wording
from tests.integration.invoices.template_drafts import (
    ADMIN,
    SHIPPED_HTML,
    draft_post,
    page_words,
    stored_version,
)

# Not transactional: the groups come from the data migrations.
pytestmark = pytest.mark.django_db
INVOICE_PERMISSIONS = {"change_invoice_template", "publish_invoice_template"}
EMAIL_DRAFT = {
    "subject": "Order {{ order.number }}: thank you",
    "text": '{% extends "notifications/email/base.txt" %}{% block content %}Thanks.{% endblock %}',
    "html": '{% extends "notifications/email/base.html" %}{% block content %}<p>Thanks.</p>{% endblock %}',
    "comment": "shorter",
}


def _email_draft_post(client):
    return client.post(f"{ADMIN}add/?kind=order_confirmation&locale=en", EMAIL_DRAFT)


def _email_draft() -> EmailTemplateVersion:
    """An email's draft someone with the right wrote."""
    return EmailTemplateVersion.objects.create(
        kind="order_confirmation",
        locale="en",
        number=1,
        subject=EMAIL_DRAFT["subject"],
        text=EMAIL_DRAFT["text"],
        html=EMAIL_DRAFT["html"],
        created_by_name="edith",
    )


def test_the_invoice_template_editors_group_comes_from_the_migration_and_the_email_editors_have_none_of_it():
    invoice_editors = {p.codename for p in Group.objects.get(name=INVOICE_EDITORS).permissions.all()}
    assert invoice_editors == {"view_emailtemplateversion", *INVOICE_PERMISSIONS}
    email_editors = {p.codename for p in Group.objects.get(name=EMAIL_EDITORS).permissions.all()}
    assert not email_editors & INVOICE_PERMISSIONS


def test_an_email_editor_may_not_write_the_invoice_template(client, editor):
    assert 'value="invoice_document"' not in client.get(f"{ADMIN}add/").content.decode()
    assert client.get(f"{ADMIN}add/?kind={DOCUMENT_KIND}&locale=en").status_code == 403
    assert draft_post(client, SHIPPED_HTML).status_code == 403
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()
    version = stored_version(SHIPPED_HTML)
    page = client.get(f"{ADMIN}{version.pk}/change/").content.decode()  # still seen, read-only
    assert "New version from this one" not in page


def test_an_email_editor_may_not_publish_or_retire_the_invoice_template(client, editor):
    draft = stored_version(SHIPPED_HTML)
    assert 'value="Publish"' not in client.get(f"{ADMIN}{draft.pk}/change/").content.decode()
    assert 'value="Publish"' not in client.get(f"{ADMIN}{draft.pk}/preview/").content.decode()
    assert client.post(f"{ADMIN}{draft.pk}/publish/").status_code == 403
    draft.refresh_from_db()
    assert draft.state == "draft"
    live = stored_version(SHIPPED_HTML, published=True)
    page = client.get(f"{ADMIN}{live.pk}/change/").content.decode()
    assert 'value="Back to the shipped template"' not in page
    assert client.post(f"{ADMIN}{live.pk}/retire/").status_code == 403
    assert live_version(DOCUMENT_KIND, "en") == live


def test_an_invoice_template_editor_writes_and_publishes_the_invoice_template_only(client, invoice_editor):
    # the invoice template: written, then published
    step_one = client.get(f"{ADMIN}add/").content.decode()
    assert 'value="invoice_document"' in step_one
    assert 'value="order_confirmation"' not in step_one
    response = draft_post(client, SHIPPED_HTML)
    assert response.status_code == 302, page_words(response)
    version = EmailTemplateVersion.objects.get(kind=DOCUMENT_KIND)
    assert "Version 1 is live" in page_words(client.post(f"{ADMIN}{version.pk}/publish/", follow=True))
    # the emails' wording: neither written nor published nor retired
    assert client.get(f"{ADMIN}add/?kind=order_confirmation&locale=en").status_code == 403
    assert _email_draft_post(client).status_code == 403
    draft = _email_draft()
    page = client.get(f"{ADMIN}{draft.pk}/change/").content.decode()
    assert 'value="Publish"' not in page
    assert "New version from this one" not in page
    assert client.post(f"{ADMIN}{draft.pk}/publish/").status_code == 403
    live = published_wording("order_refund", "en", subject="Your refund")
    assert client.post(f"{ADMIN}{live.pk}/retire/").status_code == 403
    assert live_version("order_confirmation", "en") is None
    assert live_version("order_refund", "en") == live
    assert list(EmailTemplateVersion.objects.exclude(kind=DOCUMENT_KIND)) == [draft, live]


def test_someone_given_both_writes_both(client, invoice_editor):
    invoice_editor.groups.add(email_editors_group_ensure())
    assert _email_draft_post(client).status_code == 302
    assert draft_post(client, SHIPPED_HTML).status_code == 302
    assert {version.kind for version in EmailTemplateVersion.objects.all()} == {
        "order_confirmation",
        DOCUMENT_KIND,
    }


def test_a_staff_user_given_only_the_view_permission_writes_nothing(client):
    viewer = User.objects.create_user("vera", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_emailtemplateversion"))
    client.force_login(viewer)
    assert client.get(ADMIN).status_code == 200
    assert client.get(f"{ADMIN}add/").status_code == 403
    assert draft_post(client, SHIPPED_HTML).status_code == 403
