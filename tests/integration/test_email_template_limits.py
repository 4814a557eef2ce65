"""What an email template written in the admin may do. Only the tags of the shipped templates:
a draft using `{% lorem %}`, `|ljust`, a stored value, another template, or a loop over
anything but the order's bounded lists or inside another loop is refused on save, naming what
it used. And every render (the save, the preview, a test send)
stops at the caps on size and CPU with a clear error, before it allocates much.

Through Django's test client as an email editor; the test send through the command and the
mail simulator over real HTTP."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from notifications.models import EmailTemplateVersion

pytestmark = pytest.mark.django_db
ADMIN = "/admin/notifications/emailtemplateversion/"
SUBJECT = "{% load i18n %}Order {{ order.number }} at {{ shop.name }}"
TEXT = '{% extends "notifications/email/base.txt" %}{% block content %}Thanks.{% endblock %}'
HTML = '{% extends "notifications/email/base.html" %}{% block content %}<p>Thanks.</p>{% endblock %}'
NOT_ALLOWED = "which an email template may not use. It may use {% load i18n %}, {% extends %}"
# A subject of 190 characters, repeated 3,800 times by a 49,400-character text part: within the
# template's cap, and 722,000 characters rendered.
LONG_SUBJECT = "{% load i18n %}Order {{ order.number }} " + "x" * 175
REPEATING_TEXT = "{{ subject }}" * 3800
# One <style> of 1,000 custom properties for every tag, and 1,000 tags: inlined, 10 MB.
INLINE_BOMB = (
    "<html><head><style>*{"
    + "".join(f"--p{i}:1;" for i in range(1000))
    + "}</style></head><body>"
    + "<p>x</p>" * 1000
    + "</body></html>"
)


def _save(client, **parts: str) -> str:
    """Posts a draft; returns the page's words (HTML quotes unescaped)."""
    data = {"subject": SUBJECT, "text": TEXT, "html": HTML, "comment": "a test", **parts}
    response = client.post(f"{ADMIN}add/?kind=order_confirmation&locale=en", data)
    assert response.status_code == 200, "refused drafts stay on the form"
    return response.content.decode().replace("&#x27;", "'").replace("&quot;", '"')


def _stored_behind_the_forms_back(*, published: bool = False, **parts: str) -> EmailTemplateVersion:
    """A version as an older release (or a database edit) could have left it."""
    return EmailTemplateVersion.objects.create(
        kind="order_confirmation",
        locale="en",
        number=1,
        subject=parts.get("subject", SUBJECT),
        text=parts.get("text", TEXT),
        html=parts.get("html", HTML),
        created_by_name="edith",
        published_at=timezone.now() if published else None,
    )


@pytest.mark.parametrize(
    ("part", "template", "named"),
    [
        ("text", "{% lorem 3 p %}", "{% lorem %} (line 1)"),
        ("html", "<p>Order\n{{ order.number|upper }}</p>", "the filter |upper (line 2)"),
        ("text", '{% include "notifications/email/base.txt" %}', "{% include %} (line 1)"),
        ("subject", "{% load i18n %}{% now 'Y' %} {{ order.number }}", "{% now %} (line 1)"),
    ],
)
def test_a_draft_using_what_the_shipped_templates_do_not_is_refused_naming_it(
    client, editor, part, template, named
):
    page = _save(client, **{part: template})
    assert f"This draft is refused and was not saved: The {part} template of" in page
    assert f"uses {named}, {NOT_ALLOWED}" in page
    assert not EmailTemplateVersion.objects.exists()


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        (
            "{% for a in order.lines %}{% for b in order.lines %}{% for c in order.lines %}"
            "{{ c.name }}{% endfor %}{% endfor %}{% endfor %}",
            "may not put a loop inside another loop (nested loops are how a template grows without bound)",
        ),
        (
            "{% for a in shop.name %}{{ a }}{% endfor %}",
            "may loop only over order.lines, order.discounts, order.shipping_address, order.billing_address",
        ),
        ("{% for a in 'order.lines' %}{{ a }}{% endfor %}", "may loop only over order.lines"),
    ],
)
def test_a_loop_is_refused_unless_it_goes_over_an_orders_list_and_alone(client, editor, template, reason):
    page = _save(client, text=template)
    assert "This draft is refused and was not saved: The text template of" in page
    assert reason in page
    assert not EmailTemplateVersion.objects.exists()


def test_a_loop_over_what_was_bought_is_saved(client, editor):
    text = (
        '{% extends "notifications/email/base.txt" %}{% block content %}'
        "{% for line in order.lines %}{{ line.quantity }} {{ line.name }}\n{% empty %}{{ order.amount }}"
        "{% endfor %}{% endblock %}"
    )
    data = {"subject": SUBJECT, "text": text, "html": HTML, "comment": "a loop"}
    response = client.post(f"{ADMIN}add/?kind=order_confirmation&locale=en", data)
    assert response.status_code == 302, response.content.decode()
    [version] = EmailTemplateVersion.objects.all()
    assert version.text == text


def test_a_width_filter_is_refused_before_it_allocates_anything(client, editor):
    # Refused by name before anything compiles: the engine has no such filter to run.
    page = _save(client, text='{{ order.number|ljust:"100000000" }}')
    assert f"uses the filter |ljust (line 1), {NOT_ALLOWED}" in page
    assert not EmailTemplateVersion.objects.exists()


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        (
            "{% load i18n %}{% blocktranslate asvar a %}xxxxxxxxxx{% endblocktranslate %}"
            "{% blocktranslate asvar b %}{{ a }}{{ a }}{{ a }}{{ a }}{% endblocktranslate %}{{ b }}",
            "an email template may not store a value with 'asvar'",
        ),
        ('{% load i18n %}{% translate "Amount" as a %}{{ a }}{{ a }}', "may not store a value with 'as'"),
        (
            '{% extends "notifications/email/order_confirmation/body.txt" %}',
            'an email template may extend only "notifications/email/base.txt" or',
        ),
        ("{% extends shop.name %}", "named in quotes"),
    ],
)
def test_an_allowed_tag_is_refused_where_it_could_repeat_or_reach_other_templates(
    client, editor, template, reason
):
    page = _save(client, text=template)
    assert "This draft is refused and was not saved: The text template of" in page
    assert reason in page
    assert not EmailTemplateVersion.objects.exists()


def test_a_template_repeating_a_value_into_a_huge_part_is_stopped_by_the_size_cap(client, editor):
    page = _save(client, subject=LONG_SUBJECT, text=REPEATING_TEXT)
    assert "The text part of the new order_confirmation (en) draft renders to 722,000 characters" in page
    assert "an email part may have at most 200,000" in page
    assert not EmailTemplateVersion.objects.exists()


def test_a_template_longer_than_the_cap_is_refused_before_it_is_compiled(client, editor):
    page = _save(client, html="<p>" + "{{ order.number }}" * 3000 + "</p>")
    assert "The html template of the new order_confirmation (en) draft is 54,007 characters long" in page
    assert "an email template may have at most 50,000" in page
    assert not EmailTemplateVersion.objects.exists()


def test_css_that_would_be_inlined_into_every_tag_is_refused_before_it_is_inlined(client, editor):
    page = _save(client, html=INLINE_BOMB)
    assert "The HTML part of the new order_confirmation (en) draft has 2,008 tags" in page
    assert "could write 17,857,144 characters (at most 2,000,000)" in page
    assert not EmailTemplateVersion.objects.exists()


def test_a_render_over_the_cpu_cap_is_refused(client, editor, settings):
    # given a cap of a microsecond, below what any render takes on any machine
    settings.EMAIL_RENDER_MAX_CPU_SECONDS = 0.000001
    text = '{% load i18n %}{% translate "Amount" %}: {{ order.amount }} (cpu cap)\n' * 600
    page = _save(client, text=text)
    assert "Rendering the new order_confirmation (en) draft took" in page
    assert "s of CPU by the end of its subject part; an email may take at most 1e-06 s" in page
    assert not EmailTemplateVersion.objects.exists()


@pytest.mark.parametrize(
    ("parts", "reason"),
    [
        ({"text": "{% lorem 3 p %}"}, "uses {% lorem %} (line 1), which an email template may not use"),
        (
            # The preview renders the sample shop order, whose number (1001) is 4 characters
            # shorter than the short-body sample's the draft check starts with.
            {"subject": LONG_SUBJECT, "text": REPEATING_TEXT},
            "renders to 706,800 characters; an email part may have at most 200,000",
        ),
    ],
)
def test_the_preview_of_a_stored_version_keeps_to_the_same_rules(client, editor, parts, reason):
    version = _stored_behind_the_forms_back(**parts)
    response = client.get(f"{ADMIN}{version.pk}/preview/")
    page = response.content.decode().replace("&#x27;", "'")
    assert response.status_code == 200
    assert reason in page
    assert "<iframe" not in page
    assert "Traceback" not in page


@pytest.mark.parametrize(
    ("parts", "reason"),
    [
        ({"html": '<p>{{ order.number|ljust:"30" }}</p>'}, "uses the filter |ljust (line 1)"),
        ({"html": INLINE_BOMB}, "could write 17,857,144 characters (at most 2,000,000)"),
    ],
)
def test_a_test_send_of_a_live_version_keeps_to_the_same_rules_and_sends_nothing(mailsim, parts, reason):
    _stored_behind_the_forms_back(published=True, **parts)
    with pytest.raises(CommandError) as refused:
        call_command("send_test_email", "me@example.com", "--actor", "ops", stdout=StringIO())
    assert str(refused.value).startswith("Nothing sent: The ")
    assert reason in str(refused.value)
    assert mailsim.messages() == []
