"""The delivery rules read a provider's capabilities: the same lost answer (the simulator
stores the email, then drops the connection) is resent under the same key where the provider
dedupes (Resend's wire), and goes to a person where it cannot (Postmark's wire, through the
real Anymail backend): never a second email either way."""

import pytest

from messaging.dispatch import Delivery, event_dispatch
from messaging.errors import NeedsReviewError, TransientError
from messaging.models import OutboxEvent
from notifications.models import Notification
from notifications.providers.catalogue import mail_provider

pytestmark = pytest.mark.django_db
DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)


@pytest.fixture
def anymail_postmark(settings, mailsim_url):
    settings.MAIL_PROVIDER = "anymail"
    settings.ANYMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
    settings.ANYMAIL = {
        **settings.ANYMAIL,
        "POSTMARK_SERVER_TOKEN": "dev-mail-key",
        "POSTMARK_API_URL": mailsim_url + "/",
    }
    mail_provider.cache_clear()
    yield
    mail_provider.cache_clear()


def _envelope(order) -> dict:
    return OutboxEvent.objects.get(aggregate_id=str(order.id)).payload


def test_where_the_provider_dedupes_a_lost_answer_is_resent_under_the_same_key(order, mailsim, settings):
    settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS = 1.0
    mail_provider.cache_clear()
    mailsim.set_faults({"kind": "accept_then_drop", "times": 1})
    with pytest.raises(TransientError):
        event_dispatch(raw_envelope=_envelope(order), delivery=DELIVERY)
    assert event_dispatch(raw_envelope=_envelope(order), delivery=DELIVERY) == "sent"
    [message] = mailsim.messages()
    assert Notification.objects.get(order=order).provider_message_id == message["id"]


def test_where_it_cannot_a_lost_answer_waits_for_evidence_or_a_person(order, mailsim, anymail_postmark):
    assert not mail_provider().capabilities.dedupes
    mailsim.set_faults({"kind": "accept_then_drop", "times": 1})
    with pytest.raises(NeedsReviewError):
        event_dispatch(raw_envelope=_envelope(order), delivery=DELIVERY)
    notification = Notification.objects.get(order=order)
    assert (notification.status, notification.provider) == ("needs_review", "anymail")
    assert notification.evidence_deadline is not None
    [message] = mailsim.messages()
    assert message["wire"] == "postmark"
    assert message["metadata"] == {"idempotency_key": notification.idempotency_key}
    # a second delivery of the event sends nothing: a person (or the provider's event) decides
    event_dispatch(raw_envelope=_envelope(order), delivery=DELIVERY)
    assert len(mailsim.messages()) == 1


def test_an_anymail_esp_accepts_through_the_real_backend(order, mailsim, anymail_postmark):
    assert event_dispatch(raw_envelope=_envelope(order), delivery=DELIVERY) == "sent"
    [message] = mailsim.messages()
    assert Notification.objects.get(order=order).provider_message_id == message["id"]
