"""The emails' wording in the admin through Django's test client: a new version starts from
the live wording or the shipped template, a draft that does not render is refused with the
reason, publishing and "back to the shipped template" go through the services and need the
permission, versions are never edited or deleted, and a version is previewed against the
sample order or a real one before it is published."""

import pytest
from django.contrib.auth.models import Group, Permission, User

from notifications.content.sources import SHIPPED_DIR, live_version
from notifications.email_editors import GROUP_NAME as EDITORS
from notifications.models import EmailTemplateVersion
from operations.reviewers import GROUP_NAME as REVIEWERS

# Not transactional: the "Email editors" group comes from a data migration.
pytestmark = pytest.mark.django_db
ADMIN = "/admin/notifications/emailtemplateversion/"
CONFIRMATION_EN = "?kind=order_confirmation&locale=en"
SUBJECT = "{% load i18n %}Order {{ order.number }} at {{ shop.name }}: thank you"
TEXT = (
    '{% extends "notifications/email/base.txt" %}{% block content %}We got {{ order.amount }}.{% endblock %}'
)
HTML = (
    '{% extends "notifications/email/base.html" %}'
    "{% block content %}<p>We got {{ order.amount }}.</p>{% endblock %}"
)


@pytest.fixture
def writer(client) -> User:
    """May write drafts and preview them, not publish."""
    user = User.objects.create_user("walter", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_emailtemplateversion", "add_emailtemplateversion"])
    )
    client.force_login(user)
    return user


def _draft(client, *, subject=SUBJECT, text=TEXT, html=HTML, comment="Warmer wording", where=CONFIRMATION_EN):
    data = {"subject": subject, "text": text, "html": html, "comment": comment}
    return client.post(f"{ADMIN}add/{where}", data)


def _version(client, **wording) -> EmailTemplateVersion:
    response = _draft(client, **wording)
    assert response.status_code == 302, response.content.decode()
    return EmailTemplateVersion.objects.order_by("-pk")[0]


def test_the_email_editors_group_comes_from_the_migration_and_reviewers_keep_theirs():
    editors = Group.objects.get(name=EDITORS)
    assert {p.codename for p in editors.permissions.all()} == {
        "view_emailtemplateversion",
        "add_emailtemplateversion",
        "publish_emailtemplateversion",
    }
    reviewers = {p.codename for p in Group.objects.get(name=REVIEWERS).permissions.all()}
    assert "review_notification" in reviewers
    assert "publish_emailtemplateversion" not in reviewers


def test_adding_asks_which_email_then_starts_from_the_shipped_wording(client, editor):
    step_one = client.get(f"{ADMIN}add/").content.decode()
    assert "which email, which language?" in step_one
    assert 'name="kind"' in step_one
    assert 'name="locale"' in step_one
    step_two = client.get(f"{ADMIN}add/{CONFIRMATION_EN}")
    form = step_two.context["adminform"].form
    assert form.initial["text"] == (SHIPPED_DIR / "order_confirmation" / "body.txt").read_text()
    assert form.fields["kind"].disabled
    assert form.fields["locale"].disabled
    assert "Pre-filled from the shipped template" in step_two.content.decode()


def test_a_draft_is_saved_as_the_next_version_numbered_and_signed_and_read_only(client, editor):
    response = _draft(client)
    version = EmailTemplateVersion.objects.get()
    assert response["Location"] == f"{ADMIN}{version.pk}/change/"
    assert (version.kind, version.locale, version.number, version.state) == (
        "order_confirmation",
        "en",
        1,
        "draft",
    )
    assert (version.created_by, version.created_by_name, version.comment) == (
        editor,
        "edith",
        "Warmer wording",
    )
    page = client.get(response["Location"]).content.decode()
    assert 'name="subject"' not in page  # shown, not editable
    assert 'value="Publish"' in page
    assert "New version from this one" in page
    assert _version(client).number == 2


@pytest.mark.parametrize(
    ("part", "broken", "reason"),
    [
        ("text", "{% block content %}Thanks", "Unclosed tag"),
        (
            "html",
            "<p>Order {{ oder.number }}</p>",
            "The html template of the new order_confirmation (en) draft uses {{ oder.number }}, which no",
        ),
        ("subject", "   ", "This field is required"),
    ],
)
def test_a_draft_that_does_not_render_is_refused_with_the_reason_and_not_saved(
    client, editor, part, broken, reason
):
    response = _draft(client, **{part: broken})
    assert response.status_code == 200
    page = response.content.decode()
    assert reason in page.replace("&#x27;", "'").replace("&quot;", '"')
    assert not EmailTemplateVersion.objects.exists()


def test_the_posted_email_and_language_cannot_differ_from_step_one(client, editor):
    client.post(
        f"{ADMIN}add/{CONFIRMATION_EN}",
        {"kind": "order_cancellation", "locale": "ru", "subject": SUBJECT, "text": TEXT, "html": HTML},
    )
    assert (EmailTemplateVersion.objects.get().kind, EmailTemplateVersion.objects.get().locale) == (
        "order_confirmation",
        "en",
    )


def test_publish_makes_it_live_and_retires_the_previous_live_one(client, editor):
    first, second = _version(client), _version(client, subject="Order {{ order.number }}: on its way")
    client.post(f"{ADMIN}{first.pk}/publish/")
    response = client.post(f"{ADMIN}{second.pk}/publish/", follow=True)
    assert "Version 2 is live" in response.content.decode()
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.state, first.retired_by_name) == ("retired", "edith")
    assert (second.state, second.published_by_name) == ("live", "edith")
    assert live_version("order_confirmation", "en") == second
    # and the next draft starts from the live wording
    form = client.get(f"{ADMIN}add/{CONFIRMATION_EN}").context["adminform"].form
    assert form.initial["subject"] == second.subject


def test_publishing_what_is_not_a_draft_is_refused_with_the_reason(client, editor):
    version = _version(client)
    client.post(f"{ADMIN}{version.pk}/publish/")
    client.post(f"{ADMIN}{version.pk}/retire/")
    response = client.post(f"{ADMIN}{version.pk}/publish/", follow=True)
    assert "Not published: Version 1 is retired; only a draft can be published." in response.content.decode()


def test_only_users_with_the_permission_may_publish_or_retire(client, writer):
    version = _version(client)
    assert 'value="Publish"' not in client.get(f"{ADMIN}{version.pk}/change/").content.decode()
    assert client.post(f"{ADMIN}{version.pk}/publish/").status_code == 403
    version.refresh_from_db()
    assert version.state == "draft"
    EmailTemplateVersion.objects.filter(pk=version.pk).update(published_at=version.created_at)
    assert client.post(f"{ADMIN}{version.pk}/retire/").status_code == 403
    assert live_version("order_confirmation", "en") == version


def test_back_to_the_shipped_template_retires_the_live_version(client, editor):
    version = _version(client)
    client.post(f"{ADMIN}{version.pk}/publish/")
    page = client.get(f"{ADMIN}{version.pk}/change/").content.decode()
    assert 'value="Back to the shipped template"' in page
    response = client.post(f"{ADMIN}{version.pk}/retire/", follow=True)
    assert "Back to the shipped template" in response.content.decode()
    version.refresh_from_db()
    assert (version.state, version.retired_by_name) == ("retired", "edith")
    assert live_version("order_confirmation", "en") is None


def test_versions_are_never_edited_or_deleted(client, editor):
    version = _version(client)
    client.post(f"{ADMIN}{version.pk}/change/", {"subject": "changed", "text": TEXT, "html": HTML})
    assert client.post(f"{ADMIN}{version.pk}/delete/").status_code == 403
    version.refresh_from_db()
    assert version.subject == SUBJECT


def test_the_list_shows_who_did_what_and_when(client, editor):
    version = _version(client)
    client.post(f"{ADMIN}{version.pk}/publish/")
    page = client.get(ADMIN).content.decode()
    for shown in ("order_confirmation", "en", "live", "edith", "Warmer wording"):
        assert shown in page


def test_a_draft_is_previewed_against_the_sample_order(client, writer):
    version = _version(client)
    page = client.get(f"{ADMIN}{version.pk}/preview/").content.decode()
    assert "Order 1001 at" in page  # the sample order's number, in the rendered subject
    assert "We got €49.90." in page  # the text part
    assert "<pre" in page
    assert '<iframe class="email-html" sandbox ' in page
    assert 'srcdoc="&lt;!DOCTYPE html&gt;' in page  # the HTML, escaped into the attribute
    assert "<script" not in page.split("<iframe")[1].split("</iframe>")[0]
    assert version.state == "draft"


def test_a_draft_is_previewed_against_a_real_order(client, editor, order):
    editor.user_permissions.add(Permission.objects.get(codename="view_order"))
    version = _version(client)
    page = client.get(f"{ADMIN}{version.pk}/preview/", {"order": str(order.pk)}).content.decode()
    assert f"Order {str(order.pk)[:8].upper()} at" in page
    assert "We got €49.90." in page
    assert '<iframe class="email-html" sandbox ' in page
    assert f"Rendered against order {order.pk}" in page


@pytest.mark.parametrize(
    ("order_id", "message"),
    [
        ("3f0c1b9e-0000-4000-8000-000000000000", "There is no order 3f0c1b9e-0000-4000-8000-000000000000."),
        ("1234", "is not an order id"),
    ],
)
def test_a_preview_against_an_unknown_order_says_so(client, editor, order_id, message):
    editor.user_permissions.add(Permission.objects.get(codename="view_order"))
    version = _version(client)
    page = client.get(f"{ADMIN}{version.pk}/preview/", {"order": order_id}).content.decode()
    assert message in page
    assert "<iframe" not in page


def test_a_preview_against_a_real_order_needs_the_permission_to_view_orders(client, editor, order):
    version = _version(client)
    page = client.get(f"{ADMIN}{version.pk}/preview/", {"order": str(order.pk)}).content.decode()
    assert "it needs the permission to view orders" in page
    assert order.customer_email not in page


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("order_shipment", "Parcel 1001-1 with DHL: 2 × Blue mug"),  # noqa: RUF001
        ("order_refund", "Refund 1001-R1: €18.10, Damaged in transit"),
    ],
)
def test_a_parcels_and_a_refunds_wording_is_drafted_and_previewed_like_the_others(
    client, editor, kind, words
):
    # given the shipped wording is where a draft starts
    start = client.get(f"{ADMIN}add/?kind={kind}&locale=ru").context["adminform"].form.initial["text"]
    assert start == (SHIPPED_DIR / kind / "body.txt").read_text()
    # when a draft uses the email's own values, and loops over its lines
    text = (
        '{% extends "notifications/email/base.txt" %}{% block content %}'
        + (
            "Parcel {{ shipment.id }} with {{ shipment.carrier }}: "
            "{% for line in shipment.lines %}{{ line.quantity }} × {{ line.name }}{% endfor %}"  # noqa: RUF001
            if kind == "order_shipment"
            else "Refund {{ refund.id }}: {{ refund.amount }}, {{ refund.reason }}"
        )
        + "{% endblock %}"
    )
    version = _version(client, text=text, where=f"?kind={kind}&locale=en")
    # then it is saved, and its preview shows the sample's parcel or refund
    page = client.get(f"{ADMIN}{version.pk}/preview/").content.decode()
    assert words in page.replace("&#x27;", "'")
