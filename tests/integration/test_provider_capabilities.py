"""The delivery rules read a provider's capabilities: the same lost answer (the simulator
stores the email, then drops the connection) is resent under the same key where the provider
dedupes (Resend's wire), and goes to a person where it cannot (Postmark's wire, through the
real Anymail backend): never a second email either way. And a batch's calls run at the same
time only where the provider's client takes calls at once."""

import time

import pytest

from messaging.dispatch import Delivery, event_dispatch, events_dispatch_batch
from messaging.errors import NeedsReviewError, TransientError
from messaging.models import OutboxEvent
from notifications.models import Notification
from notifications.providers.catalogue import mail_provider
from tests.factories import OrderFactory

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


CALLS, STALL_SECONDS = 4, 2.0


def _a_batch_of_slow_answers(mailsim, django_capture_on_commit_callbacks) -> float:
    """How long a batch of CALLS emails takes when every answer comes STALL_SECONDS late."""
    with django_capture_on_commit_callbacks(execute=False):
        orders = [OrderFactory.create(customer_email=f"slow{n}@example.com") for n in range(CALLS)]
    mailsim.set_faults({"kind": "stall", "seconds": STALL_SECONDS})
    started = time.monotonic()
    results = events_dispatch_batch([(_envelope(order), DELIVERY) for order in orders])
    elapsed = time.monotonic() - started
    assert results == ["sent"] * CALLS
    assert len(mailsim.messages()) == CALLS
    return elapsed


def test_a_batch_calls_a_provider_whose_client_is_thread_safe_all_at_once(
    mailsim, django_capture_on_commit_callbacks
):
    assert mail_provider().capabilities.concurrent_calls >= CALLS  # Resend's session
    assert _a_batch_of_slow_answers(mailsim, django_capture_on_commit_callbacks) < 3 * STALL_SECONDS


def test_a_batch_calls_a_provider_that_takes_one_call_at_a_time_one_after_the_other(
    mailsim, anymail_postmark, django_capture_on_commit_callbacks
):
    assert mail_provider().capabilities.concurrent_calls == 1  # a Django email backend
    assert _a_batch_of_slow_answers(mailsim, django_capture_on_commit_callbacks) >= CALLS * STALL_SECONDS
