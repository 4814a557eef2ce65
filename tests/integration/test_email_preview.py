"""manage.py email_preview: the sample order's email or a real order's, written to files; every
wrong argument a CommandError in plain words."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from notifications.models import EmailTemplateVersion, Notification
from tests.factories import published_wording

pytestmark = pytest.mark.django_db


def _preview(*args: str) -> str:
    out = StringIO()
    call_command("email_preview", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_the_sample_orders_email_is_written_as_html_and_text_with_the_subject_first(tmp_path):
    # when
    printed = _preview("order_confirmation", "--locale", "ru", "--out", str(tmp_path))
    # then
    html = (tmp_path / "order_confirmation.ru.html").read_text()
    text = (tmp_path / "order_confirmation.ru.txt").read_text()
    subject, blank, body = text.split("\n", 2)
    assert subject == "Subject: Ваш заказ 1001 в Example Shop подтверждён"
    assert blank == ""
    assert "49,90\xa0€" in body  # the sample order's amount, the Russian way (a no-break space)
    assert "<html" in html
    assert "49,90&nbsp;€" in html  # css-inline writes the no-break space as &nbsp;
    assert "the sample order, rendered now with the shipped order_confirmation template" in printed
    assert "Ваш заказ 1001" in printed
    assert str(tmp_path / "order_confirmation.ru.html") in printed


def test_an_orders_email_not_yet_sent_is_rendered_now_in_the_orders_language(order, tmp_path):
    order.locale = "ru"
    order.save(update_fields=["locale"])
    # when
    printed = _preview("order_confirmation", "--order", str(order.id), "--out", str(tmp_path))
    # then
    assert f"order {order.id}, rendered now with the shipped" in printed
    assert "order_confirmation (ru)" in printed
    assert str(order.id)[:8].upper() in (tmp_path / "order_confirmation.ru.txt").read_text()


def test_an_orders_stored_email_is_written_as_stored_even_after_the_wording_changed(order, tmp_path):
    Notification.objects.filter(order=order).update(
        email_locale="en",
        email_subject="Stored subject",
        email_text="Stored text.\n",
        email_html="<p>Stored html</p>",
        email_content_hash="h",
    )
    published_wording("order_confirmation", "en", subject="A new subject")
    # when
    printed = _preview("order_confirmation", "--order", str(order.id), "--out", str(tmp_path))
    # then: the bytes every attempt sends, not today's wording
    assert "the email stored for" in printed
    assert (tmp_path / "order_confirmation.en.txt").read_text() == "Subject: Stored subject\n\nStored text.\n"
    assert (tmp_path / "order_confirmation.en.html").read_text() == "<p>Stored html</p>"
    # and in another language than the stored one, it is rendered now, and says it is not what is sent
    printed = _preview(
        "order_confirmation", "--order", str(order.id), "--locale", "ru", "--out", str(tmp_path)
    )
    assert "its stored email is in en, not what is sent" in printed
    assert "rendered now" in printed


def test_a_published_override_is_what_the_sample_preview_shows(tmp_path):
    published_wording("order_confirmation", "en", subject="Order {{ order.number }} is in")
    printed = _preview("order_confirmation", "--locale", "en", "--out", str(tmp_path))
    assert "subject: Order 1001 is in" in printed
    assert "order_confirmation (en) version 1" in printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["order_delivered"],
            "There is no email kind 'order_delivered'; the kinds are order_confirmation, order_cancellation, "
            "order_shipment, order_refund, order_edit, order_invoice, parcel_in_transit, "
            "parcel_out_for_delivery, parcel_delivered, parcel_delivery_failed.",
        ),
        (
            ["order_confirmation", "--locale", "de"],
            "The emails are not written in 'de'; the languages are en, ru.",
        ),
        (["order_confirmation", "--order", "nope"], "'nope' is not an order id (a UUID)."),
        (["order_confirmation", "--order", "00000000-0000-4000-8000-000000000000"], "There is no order"),
    ],
)
def test_a_wrong_argument_is_a_usage_error_in_plain_words(args, message, tmp_path):
    with pytest.raises(CommandError) as raised:
        _preview(*args, "--out", str(tmp_path))
    assert message in str(raised.value)


def test_an_order_without_an_email_of_that_kind_is_a_usage_error(order, tmp_path):
    with pytest.raises(CommandError, match=f"Order {order.id} has no order_cancellation email."):
        _preview("order_cancellation", "--order", str(order.id), "--out", str(tmp_path))


def test_a_template_that_does_not_render_is_a_usage_error_with_the_reason(tmp_path):
    # live wording broken behind the admin's back (the admin refuses it), as a bad edit would
    published_wording("order_confirmation", "en", subject="Order {{ order.number }}")
    EmailTemplateVersion.objects.filter(kind="order_confirmation", locale="en").update(
        subject="{{ order.nickname }}"
    )
    with pytest.raises(CommandError, match=r"uses \{\{ order.nickname \}\}, which no email has"):
        _preview("order_confirmation", "--out", str(tmp_path))
