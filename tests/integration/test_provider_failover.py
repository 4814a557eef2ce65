"""A second provider (MAIL_PROVIDER_FALLBACK) with real worker processes, RabbitMQ and two mail
simulators over HTTP, one per provider: while the first answers 503 to everything, the emails
go out through the second within seconds, each once across both; when the first is back, new
emails go to it again; an email whose outcome at the first is unknown is never moved. And the
delivery webhooks of both providers apply to the emails."""

import json
import time

import pytest

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.events import PROVIDER_EVENT_RECEIVED
from notifications.models import DeliveryAttempt, Notification, ProviderCircuit
from notifications.providers.base import OutboundEmail, Outcome
from notifications.providers.brevo import BrevoProvider
from notifications.providers.catalogue import mail_provider
from operations.mail_provider.pause import provider_pause, provider_resume
from operations.review.services import notification_retry
from tests.broker import queue_ready_count
from tests.conftest import MailSim
from tests.factories import DeliveryAttemptFactory, NotificationFactory, OrderFactory
from tests.integration.delivery_webhook_requests import (
    BASIC_AUTH,
    SVIX_SIGNING_KEY,
    hard_bounce,
    webhook_post,
)
from tests.integration.mailsim_support import API_KEY
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("clean_queues"),
    pytest.mark.long_running,
]

# Retries 1 s apart; the circuit opens after 3 failures in a row, and a probe may test the
# first provider every 2 s.
FAILOVER_SETTINGS = {
    "DELIVERY_RETRY_BASE_DELAY_SECONDS": "1",
    "DELIVERY_RETRY_MAX_DELAY_SECONDS": "1",
    "MAIL_PROVIDER_CIRCUIT_FAILURES": "3",
    "MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS": "2",
}


@pytest.fixture
def fallback_sim(mailsim_spawn) -> MailSim:
    return MailSim(mailsim_spawn().url)


@pytest.fixture
def failover_worker(start_worker, fallback_sim):
    """A worker whose first provider is Resend (the shared simulator) and whose fallback is
    Brevo (a simulator of its own)."""

    def start(concurrency: int = 2) -> None:
        start_worker(
            concurrency=concurrency,
            **FAILOVER_SETTINGS,
            MAIL_PROVIDER_FALLBACK="brevo",
            MAIL_PROVIDER_FALLBACK_URL=fallback_sim.url,
            MAIL_PROVIDER_FALLBACK_API_KEY=API_KEY,
        )

    return start


def _statuses(emails) -> list[str]:
    return sorted(Notification.objects.filter(id__in=[n.id for n in emails]).values_list("status", flat=True))


def _emails_of(orders) -> list[Notification]:
    return list(Notification.objects.filter(order__in=orders))


def _keys(sim: MailSim) -> list[str]:
    return sorted(message["idempotency_key"] for message in sim.messages())


def test_during_an_outage_the_fallback_sends_each_email_once_and_the_first_takes_over_again(
    mailsim, fallback_sim, failover_worker
):
    # given: the first provider answers 503 to everything
    mailsim.set_faults({"kind": "503"})
    failover_worker()
    started = time.monotonic()
    during = [OrderFactory.create(customer_email=f"outage{n}@example.com") for n in range(10)]
    emails = _emails_of(during)
    # then: every email is sent within seconds, through the fallback, once
    wait_until(lambda: _statuses(emails) == ["sent"] * 10, timeout=30, message="sent through the fallback")
    seconds = time.monotonic() - started
    assert mailsim.messages() == []
    assert _keys(fallback_sim) == sorted(n.idempotency_key for n in emails)
    assert set(Notification.objects.filter(order__in=during).values_list("provider", flat=True)) == {"brevo"}
    # what reached the first provider was refused, nothing else
    assert {entry["status"] for entry in mailsim.requests_log()} <= {503}
    assert set(DeliveryAttempt.objects.filter(provider="resend").values_list("outcome", flat=True)) <= {
        "transient"
    }
    assert seconds < 20, seconds
    # when: the first provider is back; an email that comes once its circuit's open period
    # has passed is its probe, and closes it
    mailsim.set_faults()
    back = _first_sent_through_resend_again()
    assert ProviderCircuit.objects.get(provider="resend").state == "closed"
    # then: every new email is the first provider's again
    after = [OrderFactory.create(customer_email=f"after{n}@example.com") for n in range(4)]
    wait_until(lambda: _statuses(_emails_of(after)) == ["sent"] * 4, timeout=20, message="sent after")
    assert set(Notification.objects.filter(order__in=after).values_list("provider", flat=True)) == {"resend"}
    assert len(mailsim.messages()) == 4 + 1, back
    # and across both providers every email was accepted exactly once
    every = _keys(mailsim) + _keys(fallback_sim)
    assert sorted(every) == sorted(Notification.objects.values_list("idempotency_key", flat=True))


def _first_sent_through_resend_again(tries: int = 8) -> int:
    """Orders one at a time, a second apart, until one's email goes to the first provider
    (inside its open period they still go to the fallback); how many it took."""
    for number in range(1, tries + 1):
        order = OrderFactory.create(customer_email=f"back{number}@example.com")
        emails = _emails_of([order])
        wait_until(lambda: _statuses(emails) == ["sent"], timeout=20, message="sent")  # noqa: B023
        if Notification.objects.get(order=order).provider == "resend":
            return number
        time.sleep(1)
    raise AssertionError(f"none of {tries} emails went to the first provider once it was back")


def test_emails_caught_with_an_unknown_outcome_at_the_first_are_never_moved(
    mailsim, fallback_sim, failover_worker
):
    # given: the first provider takes every email and drops the connection before answering,
    # and five emails queued before a worker with one pool process starts, so that all five
    # reach it in one batch before its circuit opens (an email claimed once it is open may go
    # to the fallback: it has nothing at the first)
    mailsim.set_faults({"kind": "accept_then_drop"})
    caught = [OrderFactory.create(customer_email=f"caught{n}@example.com") for n in range(5)]
    wait_until(lambda: queue_ready_count("orders.confirmations") == 5, timeout=20, message="all queued")
    failover_worker(concurrency=1)
    caught_emails = _emails_of(caught)
    unknown_at_first = DeliveryAttempt.objects.filter(
        notification__in=caught_emails, provider="resend", outcome="unknown"
    )
    wait_until(
        lambda: unknown_at_first.values("notification").distinct().count() == 5,
        timeout=20,
        message="each caught email's call to the first provider unknown",
    )
    wait_until(
        lambda: ProviderCircuit.objects.filter(provider="resend", state__in=["open", "half_open"]).exists(),
        timeout=20,
        message="the first provider's circuit open",
    )
    # when: more orders come while its circuit is open
    new = [OrderFactory.create(customer_email=f"new{n}@example.com") for n in range(5)]
    wait_until(lambda: _statuses(_emails_of(new)) == ["sent"] * 5, timeout=30, message="new ones sent")
    time.sleep(4)  # two more probe periods: the caught ones had every chance to move
    # then: the new emails went through the fallback, and not one caught email did
    caught_keys = {n.idempotency_key for n in caught_emails}
    assert not caught_keys & set(_keys(fallback_sim))
    assert _keys(fallback_sim) == sorted(n.idempotency_key for n in _emails_of(new))
    assert not DeliveryAttempt.objects.filter(notification__in=caught_emails, provider="brevo").exists()
    # when the first provider answers again, the caught ones are resent there under their keys:
    # its deduplication makes each the one email it already took
    mailsim.set_faults()
    wait_until(lambda: _statuses(caught_emails) == ["sent"] * 5, timeout=30, message="caught ones settled")
    assert _keys(mailsim) == sorted(caught_keys)
    assert sorted(_keys(mailsim) + _keys(fallback_sim)) == sorted(
        Notification.objects.values_list("idempotency_key", flat=True)
    )


@pytest.fixture
def brevo_first(settings, fallback_sim, start_worker):
    """Brevo sends (the shared simulator), Resend is its fallback (a simulator of its own): in
    this process (the reviewer's retry, the operator's pause) and in the worker it starts."""
    fallback = {
        "MAIL_PROVIDER_FALLBACK": "resend",
        "MAIL_PROVIDER_FALLBACK_URL": fallback_sim.url,
        "MAIL_PROVIDER_FALLBACK_API_KEY": API_KEY,
    }
    settings.MAIL_PROVIDER = "brevo"
    for name, value in fallback.items():
        setattr(settings, name, value)
    mail_provider.cache_clear()
    yield lambda: start_worker(**FAILOVER_SETTINGS, MAIL_PROVIDER="brevo", **fallback)
    mail_provider.cache_clear()


def test_an_email_the_first_accepted_earlier_stays_with_it_through_a_reviewers_retry_while_paused(
    mailsim, fallback_sim, brevo_first
):
    # given: Brevo holds the email under its key already (a send of it went through), so the
    # worker's call is answered "duplicate": accepted earlier, and the email waits for a person
    order = OrderFactory.create(customer_email="held@example.com")
    [email] = _emails_of([order])
    held = OutboundEmail(
        idempotency_key=email.idempotency_key,
        to="held@example.com",
        subject="Confirmed",
        text="…",
        event_id="e",
    )
    assert BrevoProvider().send(held).outcome == Outcome.ACCEPTED
    brevo_first()
    wait_until(lambda: _statuses([email]) == ["needs_review"], timeout=30, message="accepted earlier")
    assert list(email.attempts.values_list("provider", "outcome")) == [("brevo", "accepted_earlier")]
    # when: Brevo is paused for maintenance, and a reviewer retries the email
    provider_pause(provider="brevo", actor_name="ops", reason="maintenance")
    notification_retry(notification=email, actor=None, actor_name="reviewer")

    def settled() -> Notification | None:
        now = Notification.objects.get(pk=email.pk)
        return now if now.status == "sent" or "paused" in now.last_error else None

    wait_until(settled, timeout=30, message="the retry waiting for Brevo, or sent")
    time.sleep(4)  # two more of its waits: every chance to move
    # then: it waits for Brevo, which has it; the fallback never got a second copy
    assert fallback_sim.messages() == []
    assert not DeliveryAttempt.objects.filter(notification=email, provider="resend").exists()
    assert _statuses([email]) == ["pending"]
    # and once Brevo is back, the resend goes there under the same key: still the one email
    provider_resume(provider="brevo", actor_name="ops")
    wait_until(lambda: _statuses([email]) == ["needs_review"], timeout=30, message="back with Brevo")
    assert set(email.attempts.values_list("provider", flat=True)) == {"brevo"}
    assert [m["idempotency_key"] for m in mailsim.messages()] == [email.idempotency_key]
    assert fallback_sim.messages() == []


@pytest.mark.parametrize("endpoint", ["resend", "brevo"])
def test_the_delivery_webhooks_of_both_providers_apply_to_the_emails(settings, endpoint):
    # given: Resend sends, Brevo is the fallback, each webhook with its secret
    settings.MAIL_PROVIDER, settings.MAIL_PROVIDER_FALLBACK = "resend", "brevo"
    settings.RESEND_WEBHOOK_SECRET = SVIX_SIGNING_KEY
    settings.ANYMAIL = {**settings.ANYMAIL, "WEBHOOK_SECRET": BASIC_AUTH}
    notification = NotificationFactory.create(status="sent", provider=endpoint)
    DeliveryAttemptFactory.create(notification=notification, outcome="accepted", provider=endpoint)
    address = notification.order.customer_email
    # when: the provider that sent it reports a hard bounce
    body, headers = hard_bounce(endpoint, key=notification.idempotency_key, address=address, genuine=True)
    path = {"resend": "/webhooks/resend/", "brevo": "/webhooks/anymail/brevo/tracking/"}[endpoint]
    assert webhook_post(path, body, headers).status_code == 200
    for event in OutboxEvent.objects.filter(event_type=PROVIDER_EVENT_RECEIVED):
        event_dispatch(raw_envelope=event.payload, delivery=Delivery(worker="w", retries=0, max_retries=3))
    # then: it applies to the email
    notification.refresh_from_db()
    assert notification.delivery_status == "bounced", json.dumps(notification.delivery_detail)
