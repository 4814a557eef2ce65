"""The email a notification's first attempt rendered is what every later attempt sends, with
a real worker, RabbitMQ and the mail simulator: wording published between the first attempt
and its retry reaches only emails rendered after it, and the provider sees the same body
under the same key (the simulator compares it, as Resend does)."""

import pytest

from notifications.models import Notification
from orders.models import Order
from tests.factories import OrderFactory, published_wording
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

# Long enough that the new wording is published before the retry, however slow the machine.
SLOW_RETRY = {"DELIVERY_MAX_RETRIES": "2", "DELIVERY_RETRY_BASE_DELAY_SECONDS": "6"}
NEW_SUBJECT = "Order {{ order.number }}: we are on it"


def _notification(order: Order) -> Notification:
    return Notification.objects.get(order=order, kind="order_confirmation")


def test_wording_published_between_an_attempt_and_its_retry_does_not_change_the_email(mailsim, start_worker):
    # given the first attempt reaches the provider but its answer is lost (an unknown outcome)
    mailsim.set_faults({"kind": "accept_then_drop", "times": 1})
    start_worker(**SLOW_RETRY)
    order = OrderFactory.create(customer_email="first@example.com")
    wait_until(
        lambda: _notification(order).attempts.filter(outcome="unknown").exists(),
        timeout=30,
        message="the first attempt's answer lost",
    )
    rendered = _notification(order)
    # when new wording is published before the retry
    published_wording("order_confirmation", "en", subject=NEW_SUBJECT)
    sent = wait_until(
        lambda: Notification.objects.filter(pk=rendered.pk, status="sent").first(),
        timeout=40,
        message="the retry sent",
    )
    # then the retry sent the stored email: same key, same content, replayed by the provider
    attempts = list(sent.attempts.order_by("number").values_list("outcome", flat=True))
    assert attempts == ["unknown", "accepted"]
    first, retry = mailsim.requests_log()
    assert first["idempotency_key"] == retry["idempotency_key"] == sent.idempotency_key
    assert first["fingerprint"] == retry["fingerprint"]
    assert (first["outcome"], retry["outcome"]) == ("dropped", "replayed")
    [message] = mailsim.messages()
    assert message["subject"] == sent.email_subject == rendered.email_subject
    assert "we are on it" not in message["subject"]
    assert (message["text"], message["html"]) == (sent.email_text, sent.email_html)
    assert sent.email_template is None  # rendered from the shipped templates
    # and an email rendered after the publication uses the new wording
    later = OrderFactory.create(customer_email="later@example.com")
    later_sent = wait_until(
        lambda: Notification.objects.filter(order=later, kind="order_confirmation", status="sent").first(),
        timeout=30,
        message="the later email sent",
    )
    assert later_sent.email_subject.endswith("we are on it")
    assert later_sent.email_template is not None
    assert later_sent.email_template.number == 1


def test_an_email_that_does_not_render_fails_before_anything_is_sent(mailsim, start_worker):
    # given live wording that does not render (the admin refuses such a draft, so it is broken
    # behind its back, as a bad database edit would): the worker must still refuse to send it
    version = published_wording("order_confirmation", "ru", subject="Заказ {{ order.number }}")
    type(version).objects.filter(pk=version.pk).update(text="{% block %}")
    start_worker()
    order = OrderFactory.create(customer_email="ru@example.com", locale="ru")
    notification = wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="failed").first(),
        timeout=30,
        message="a failed notification",
    )
    assert notification.last_error.startswith("The email could not be rendered")
    assert "order_confirmation (ru) version 1" in notification.last_error
    assert "line 1" in notification.last_error
    assert notification.email_content_hash == ""  # nothing stored, nothing sent
    assert mailsim.messages() == []
    assert list(notification.attempts.values_list("outcome", flat=True)) == ["permanent"]
