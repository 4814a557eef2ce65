"""The email on the notification page: the snapshot stored at the first attempt (subject,
HTML in a sandboxed frame, text, hash, when, which template), or before that a labelled
preview with today's live templates, or the reason it cannot be rendered; a new version
published later never changes an email already rendered. The list does not load the emails."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from notifications.content.overrides import override_draft_create, override_publish
from notifications.models import EmailTemplateVersion, Notification
from tests.factories import DeliveryAttemptFactory, NotificationFactory, staff_user

# Not transactional: the reviewers group comes from a data migration.
pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/notifications/notification/"
NEW_SUBJECT = "Brand new wording for {{ order.number }}"


def _page(client, notification: Notification) -> str:
    response = client.get(f"{CHANGELIST}{notification.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def _publish_new_wording(locale: str = "en") -> EmailTemplateVersion:
    shipped_like = '{% extends "notifications/email/base.txt" %}{% block content %}New.{% endblock %}'
    version = override_draft_create(
        kind="order_confirmation",
        locale=locale,
        subject=NEW_SUBJECT,
        text=shipped_like,
        html="<p>New {{ order.number }}.</p>",
        comment="",
        author=None,
        author_name="edith",
    )
    return override_publish(version.pk, by_name="edith")


@pytest.fixture
def rendered(client, order) -> Notification:
    client.force_login(staff_user("rita", reviewer=True))
    DeliveryAttemptFactory.create(notification=NotificationFactory.create(order=order), outcome="accepted")
    return Notification.objects.get(order=order)


@pytest.fixture
def pending(client, order) -> Notification:
    client.force_login(staff_user("rita", reviewer=True))
    return Notification.objects.get(order=order)


def test_the_page_shows_the_stored_email(client, rendered):
    page = _page(client, rendered)
    assert rendered.email_subject in page
    assert '<iframe class="email-html" sandbox ' in page
    assert 'srcdoc="&lt;!DOCTYPE html&gt;' in page
    assert "<pre" in page
    assert "Thank you for your order!" in page  # the text part
    assert rendered.email_content_hash in page
    assert "Template: the shipped template" in page
    assert "Not rendered yet" not in page


def test_a_pending_notification_shows_a_labelled_preview_with_the_live_templates(client, pending):
    page = _page(client, pending)
    assert "Not rendered yet: this is what it would look like now" in page
    assert '<iframe class="email-html" sandbox ' in page
    assert f"Your order {str(pending.order_id)[:8].upper()} at" in page
    # with a version published, the preview uses it and links to it
    version = _publish_new_wording()
    page = _page(client, pending)
    assert f"Brand new wording for {str(pending.order_id)[:8].upper()}" in page
    assert f'/admin/notifications/emailtemplateversion/{version.pk}/change/">version 1 (en)' in page
    pending.refresh_from_db()
    assert pending.email_content_hash == ""  # a preview stores nothing


def test_a_render_error_is_shown_in_plain_words(client, pending):
    # a live version that no longer renders (e.g. the shipped base layout changed under it)
    EmailTemplateVersion.objects.create(
        kind="order_confirmation",
        locale="en",
        number=1,
        subject="Order {{ order.number }}",
        text="{% block content %}never closed",
        html="<p>x</p>",
        created_by_name="edith",
        published_at=timezone.now(),
    )
    page = _page(client, pending)
    assert "Not rendered yet, and it cannot be rendered now: The text template of" in page
    assert "Unclosed tag" in page
    assert "Traceback" not in page


def test_a_new_version_does_not_change_an_email_already_rendered(client, rendered):
    before = _page(client, rendered)
    _publish_new_wording()
    after = _page(client, rendered)
    assert "Brand new wording" not in after
    assert rendered.email_subject in after
    assert rendered.email_content_hash in after
    stored = Notification.objects.get(pk=rendered.pk)
    assert (stored.email_subject, stored.email_html, stored.email_content_hash, stored.email_template) == (
        rendered.email_subject,
        rendered.email_html,
        rendered.email_content_hash,
        None,
    )
    assert before.count(rendered.email_content_hash) == after.count(rendered.email_content_hash)


def test_the_list_does_not_load_the_emails(client, rendered):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(CHANGELIST)
    assert response.context["cl"].result_count == 1
    listing = [q["sql"] for q in queries.captured_queries if 'FROM "notifications_notification"' in q["sql"]]
    assert listing
    assert not [sql for sql in listing if '"email_html"' in sql or '"email_text"' in sql]
