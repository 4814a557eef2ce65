"""The reason the order API gives for each email: its state in plain words for the shop. What
our reviewers wrote (their names, comments and evidence), the mail provider's own answer and a
template's error stay in the admin (`last_error`), whoever wrote them there.

Each state is reached the way the product reaches it: the handler against the mail simulator,
and the reviewers' and operators' own services."""

import pytest
from django.utils import timezone

from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import PermanentError, WaitError
from messaging.models import OutboxEvent
from notifications.models import EmailTemplateVersion, Notification, Suppression
from notifications.providers.catalogue import mail_provider
from operations.mail_provider.pause import provider_pause
from operations.review.resolve import notification_mark_sent
from operations.review.services import notification_reject
from orders.changes import order_cancel
from orders.models import Order
from tests.factories import NotificationFactory, staff_user

pytestmark = pytest.mark.django_db

DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)
REVIEWER = "grace.hopper"
COMMENT = "Customer phoned, suspected fraud, do not write to them"
EVIDENCE = "msg_4f2a9c seen as delivered in the provider's log at 10:02"
PROVIDER_TEXT = "The recipient address was rejected"
TEMPLATE_TEXT = "Unclosed tag"
BOUNCE_TEXT = "550 5.1.1 mailbox unknown at mx.example.net"


def _handle(order: Order) -> str:
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id), event_type="order.created").payload
    return event_dispatch(raw_envelope=envelope, delivery=DELIVERY)


def _confirmation(order: Order) -> Notification:
    return Notification.objects.get(order=order, kind="order_confirmation")


def _rejected_by_a_reviewer(order: Order, mailsim) -> None:
    reviewer = staff_user(REVIEWER, reviewer=True)
    notification_reject(notification=_confirmation(order), actor=reviewer, comment=COMMENT)


def _marked_sent_with_evidence(order: Order, mailsim) -> None:
    reviewer = staff_user(REVIEWER, reviewer=True)
    notification = NotificationFactory.create(order=order, needs_review=True)
    notification_mark_sent(
        notification_id=notification.pk, actor=reviewer, actor_name=REVIEWER, evidence=EVIDENCE
    )


def _refused_by_the_provider(order: Order, mailsim) -> None:
    mailsim.set_faults({"kind": "reject"})
    with pytest.raises(PermanentError):
        _handle(order)


def _template_does_not_render(order: Order, mailsim) -> None:
    EmailTemplateVersion.objects.create(
        kind="order_confirmation",
        locale="en",
        number=1,
        subject="Order {{ order.number }}",
        text="{% block content %}never closed",
        html="<p>x</p>",
        created_by_name=REVIEWER,
        published_at=timezone.now(),
    )
    with pytest.raises(PermanentError):
        _handle(order)


def _provider_paused_by_an_operator(order: Order, mailsim) -> None:
    provider_pause(provider=mail_provider().name, actor_name=REVIEWER, reason=COMMENT)
    with pytest.raises(WaitError):
        _handle(order)


def _address_suppressed(order: Order, mailsim) -> None:
    Suppression.objects.create(address=order.customer_email, reason="bounced", detail=BOUNCE_TEXT)
    assert _handle(order) == "skipped"


def _cancelled_before_it_went_out(order: Order, mailsim) -> None:
    order_cancel(order_id=order.id, api_token=order.api_token)
    assert _handle(order) == "skipped"


# How each state is reached, the words our staff or the provider left in `last_error`, and the
# reason the client reads instead.
CASES = {
    "rejected by a reviewer": (
        _rejected_by_a_reviewer,
        [REVIEWER, COMMENT],
        "Not sent: our team decided not to send this email.",
    ),
    "marked sent with evidence": (
        _marked_sent_with_evidence,
        [REVIEWER, EVIDENCE],
        "Sent: the mail provider accepted the email.",
    ),
    "refused by the provider": (
        _refused_by_the_provider,
        [PROVIDER_TEXT, "HTTP 422"],
        "Not sent: the mail provider refused it for good, most often because the address does not "
        "exist or cannot receive email. Our team reviews it.",
    ),
    "template error": (
        _template_does_not_render,
        [TEMPLATE_TEXT, "template"],
        "Not sent: the email could not be prepared because of a fault on our side. Our team reviews it.",
    ),
    "provider paused by an operator": (
        _provider_paused_by_an_operator,
        [REVIEWER],
        "Waiting for the mail provider, which is paused, recovering or at its sending rate; the email "
        "goes out as soon as it can.",
    ),
    "address suppressed after a bounce": (
        _address_suppressed,
        [BOUNCE_TEXT],
        "Not sent: the address is on our do-not-send list because an earlier email to it bounced or "
        "was reported as spam.",
    ),
    "order cancelled first": (
        _cancelled_before_it_went_out,
        [],
        "Not sent: the order was cancelled before its confirmation went out.",
    ),
}


@pytest.mark.parametrize(("reach", "staff_words", "reason"), CASES.values(), ids=CASES.keys())
def test_the_api_gives_the_state_in_words_and_none_of_the_staff_or_provider_words(
    client, order, mailsim, reach, staff_words, reason
):
    # given the email brought to the state, with the staff's or provider's words in last_error
    reach(order, mailsim)
    last_error = _confirmation(order).last_error
    assert all(word in last_error for word in staff_words), last_error
    # when the shop reads its order
    response = client.get(f"/api/orders/{order.id}/")
    # then the reason says the state in words, and no part of the answer carries those words
    assert response.status_code == 200
    confirmation = next(n for n in response.json()["notifications"] if n["kind"] == "order_confirmation")
    assert confirmation["reason"] == reason
    assert not [word for word in staff_words if word in response.content.decode()]


def test_every_status_has_a_reason_for_the_client(client, order):
    for status in Notification.Status:
        Notification.objects.filter(order=order).update(status=status, error_class="", last_error="x")
        [confirmation] = client.get(f"/api/orders/{order.id}/").json()["notifications"]
        assert confirmation["reason"] not in ("", "x"), status
