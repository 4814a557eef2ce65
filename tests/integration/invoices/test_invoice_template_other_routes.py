"""The invoice template's own permissions, attacked by the admin's other routes: a kind posted
in the form's body against the one in its address, the "new version from this one" address
naming another kind's version, the changelist's actions and a version's history. Each is
refused, or does not reach the other kind; nothing is stored or published."""

import pytest

from notifications.content.sources import DOCUMENT_KIND
from notifications.models import EmailTemplateVersion
from tests.integration.invoices.template_drafts import ADMIN, SHIPPED_HTML, stored_version

pytestmark = pytest.mark.django_db
EMAIL_ADD = f"{ADMIN}add/?kind=order_confirmation&locale=en"


def test_an_email_editor_posting_the_invoice_kind_in_the_body_writes_an_email_s_draft_or_nothing(
    client, editor
):
    # the address says the confirmation email (the editor's right); the body says the invoice
    body = {"kind": DOCUMENT_KIND, "locale": "de", "html": SHIPPED_HTML, "comment": "swap"}
    client.post(EMAIL_ADD, body | {"subject": "x", "text": "x"})
    assert not EmailTemplateVersion.objects.filter(kind=DOCUMENT_KIND).exists()
    assert not EmailTemplateVersion.objects.filter(locale="de").exists()


def test_an_invoice_editor_posting_an_email_kind_in_the_body_writes_no_email(client, invoice_editor):
    body = {"kind": "order_confirmation", "locale": "en", "html": SHIPPED_HTML, "comment": "swap"}
    client.post(f"{ADMIN}add/?kind={DOCUMENT_KIND}&locale=en", body | {"subject": "x", "text": "x"})
    assert not EmailTemplateVersion.objects.exclude(kind=DOCUMENT_KIND).exists()


def test_new_version_from_another_kind_s_version_is_not_offered_its_content(client, editor):
    invoice = stored_version(SHIPPED_HTML)
    page = client.get(f"{EMAIL_ADD}&from={invoice.pk}").content.decode()
    assert page.count("@page") == 0  # the invoice's HTML is not copied into an email's draft


def test_the_changelist_has_no_action_and_the_history_is_read_only(client, editor):
    version = stored_version(SHIPPED_HTML, published=True)
    changelist = client.get(ADMIN)
    assert changelist.status_code == 200
    assert 'name="action"' not in changelist.content.decode()
    refused = client.post(ADMIN, {"action": "delete_selected", "_selected_action": [version.pk]})
    assert refused.status_code in (200, 302, 403)
    assert EmailTemplateVersion.objects.filter(pk=version.pk).exists()
    assert client.get(f"{ADMIN}{version.pk}/history/").status_code == 200
    assert client.post(f"{ADMIN}{version.pk}/change/", {"html": "<p>x</p>"}).status_code == 403
    assert client.post(f"{ADMIN}{version.pk}/delete/").status_code == 403
    version.refresh_from_db()
    assert version.html == SHIPPED_HTML
