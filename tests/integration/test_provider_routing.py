"""Which provider an email's claim calls when MAIL_PROVIDER_FALLBACK is set (routing.py), decided
against PostgreSQL's circuit rows and attempt rows: the fallback takes an email only while the
first provider's circuit is open or it is paused, and only if nothing of the email may have
reached the first. The worker processes and both simulators over HTTP are in
test_provider_failover.py."""

import re
import time
import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from messaging.errors import HandlingError, NeedsReviewError, WaitError
from messaging.registry import event_type_get
from notifications.delivery.circuit import CLOSED, circuit_record
from notifications.delivery.claims import (
    AlreadyDone,
    Claim,
    ClaimRequest,
    DocumentsFirst,
    notification_claims,
)
from notifications.models import DeliveryAttempt, Notification, OperatorAction, ProviderCircuit
from notifications.providers.base import Outcome, SendResult
from notifications.providers.catalogue import fallback_provider, mail_provider
from notifications.sending_now import sending_now
from operations.mail_provider.pause import provider_pause
from operations.review.services import retry_dead_end
from orders.events import ORDER_CREATED
from tests.factories import DeliveryAttemptFactory, NotificationFactory, OrderFactory
from tests.integration.mailsim_support import API_KEY

pytestmark = pytest.mark.django_db(transaction=True)

Status = ProviderCircuit.State


@pytest.fixture
def with_fallback(settings, mailsim_url):
    settings.MAIL_PROVIDER_FALLBACK = "brevo"
    settings.MAIL_PROVIDER_FALLBACK_URL = mailsim_url
    settings.MAIL_PROVIDER_FALLBACK_API_KEY = API_KEY
    assert mail_provider().name == "resend"
    fallback = fallback_provider()
    assert fallback is not None
    assert fallback.name == "brevo"


def _claim(order) -> Claim | AlreadyDone | DocumentsFirst | HandlingError:
    request = ClaimRequest(order.id, event_type_get(ORDER_CREATED), uuid.uuid4(), worker="w")
    [decision] = notification_claims([request], provider=mail_provider(), fallback=fallback_provider())
    return decision


def _confirmation(order) -> Notification:
    return Notification.objects.get(order=order, kind=Notification.Kind.ORDER_CONFIRMATION)


def _open(provider: str) -> None:
    """The provider's circuit opened by its failures, for the next 30 s."""
    failures = [SendResult(Outcome.TRANSIENT, http_status=503)] * 5
    circuit_record(failures, seen=CLOSED, provider=provider, now=timezone.now())
    assert ProviderCircuit.objects.get(provider=provider).state == Status.OPEN


def _called(decision) -> str:
    assert isinstance(decision, Claim), decision
    attempt = DeliveryAttempt.objects.get(pk=decision.attempt.pk)
    assert decision.provider is not None
    assert attempt.provider == decision.provider.name == decision.notification.provider
    return attempt.provider


def test_the_first_provider_sends_while_its_circuit_is_closed(with_fallback):
    assert _called(_claim(OrderFactory.create())) == "resend"


def test_a_new_email_goes_to_the_fallback_while_the_first_is_paused_or_open(with_fallback):
    provider_pause(provider="resend", actor_name="ops", reason="maintenance")
    assert _called(_claim(OrderFactory.create())) == "brevo"
    ProviderCircuit.objects.filter(provider="resend").delete()
    _open("resend")
    assert _called(_claim(OrderFactory.create())) == "brevo"


def test_an_email_the_first_definitely_refused_moves_to_the_fallback(with_fallback):
    order = OrderFactory.create()
    DeliveryAttemptFactory.create(notification=_confirmation(order), outcome="transient", provider="resend")
    _open("resend")
    assert _called(_claim(order)) == "brevo"


# "": its worker died in the call; accepted earlier, key conflict: the first holds it already
@pytest.mark.parametrize("outcome", ["unknown", "in_flight", "", "accepted_earlier", "key_conflict"])
def test_an_email_with_an_unknown_outcome_at_the_first_is_never_moved(with_fallback, outcome):
    order = OrderFactory.create()
    DeliveryAttemptFactory.create(notification=_confirmation(order), outcome=outcome, provider="resend")
    provider_pause(provider="resend", actor_name="ops", reason="maintenance")
    decision = _claim(order)
    # it waits for the first provider, which still recognises its key: nothing new was tried
    assert isinstance(decision, WaitError), decision
    assert "paused" in decision.reason
    assert list(_confirmation(order).attempts.values_list("provider", flat=True)) == ["resend"]
    # and once the first is back, the resend goes there, under the same key
    ProviderCircuit.objects.filter(provider="resend").delete()
    assert _called(_claim(order)) == "resend"


def test_an_email_with_an_unknown_outcome_at_the_fallback_stays_with_the_fallback(with_fallback):
    order = OrderFactory.create()
    notification = _confirmation(order)
    DeliveryAttemptFactory.create(notification=notification, outcome="transient", provider="resend")
    DeliveryAttemptFactory.create(notification=notification, outcome="unknown", provider="brevo")
    assert _called(_claim(order)) == "brevo"  # the first provider is fine, and still not asked


def test_the_first_takes_the_probe_when_it_is_due_and_the_rest_go_to_the_fallback(with_fallback):
    _open("resend")
    ProviderCircuit.objects.filter(provider="resend").update(retry_at=timezone.now() - timedelta(seconds=1))
    probe = _claim(OrderFactory.create())
    assert _called(probe) == "resend"
    assert isinstance(probe, Claim)
    assert probe.probe
    assert _called(_claim(OrderFactory.create())) == "brevo"  # the probe is out: not a second one


def test_an_email_waits_when_neither_provider_takes_emails(with_fallback):
    provider_pause(provider="resend", actor_name="ops", reason="maintenance")
    _open("brevo")
    decision = _claim(OrderFactory.create())
    assert isinstance(decision, WaitError), decision
    assert decision.reason.startswith("Neither mail provider takes emails now.")
    assert "resend: The mail provider is paused" in decision.reason
    assert "brevo: The mail provider failed 5 times" in decision.reason


def test_a_sending_limit_is_not_an_outage_the_email_waits_for_a_token(with_fallback, settings):
    settings.MAIL_PROVIDER_RATE_LIMIT = 1
    assert _called(_claim(OrderFactory.create())) == "resend"
    lent = _claim(OrderFactory.create())  # a second's call lent ahead: still the first's
    assert _called(lent) == "resend"
    assert isinstance(lent, Claim)
    assert lent.call_not_before > time.monotonic() + 0.5, lent
    decision = _claim(OrderFactory.create())
    assert isinstance(decision, WaitError), decision
    assert "per second" in decision.reason


def test_an_email_unknown_at_a_provider_no_longer_configured_goes_to_a_person(with_fallback):
    order = OrderFactory.create()
    DeliveryAttemptFactory.create(notification=_confirmation(order), outcome="unknown", provider="ses")
    decision = _claim(order)
    assert isinstance(decision, NeedsReviewError), decision
    assert "(ses)" in decision.reason
    assert _confirmation(order).status == Notification.Status.NEEDS_REVIEW


def test_without_a_fallback_an_open_circuit_holds_the_email_as_before(settings):
    settings.MAIL_PROVIDER_FALLBACK = ""
    _open("resend")
    decision = _claim(OrderFactory.create())
    assert isinstance(decision, WaitError), decision
    assert "failed 5 times in a row" in decision.reason


def test_an_operator_forces_the_fallback_and_back_from_the_command_line(with_fallback):
    out = StringIO()
    call_command("provider", "use", "brevo", "--reason", "Resend maintenance", "--actor", "olga", stdout=out)
    said = out.getvalue()
    assert "Sending through brevo only: resend is paused" in said
    assert "Sending through the fallback, brevo since " in said
    assert _called(_claim(OrderFactory.create())) == "brevo"
    out = StringIO()
    call_command("provider", "use", "automatic", "--actor", "olga", stdout=out)
    assert "Sending through resend since " in out.getvalue()
    assert _called(_claim(OrderFactory.create())) == "resend"
    forced = OperatorAction.objects.get(action="provider_force")
    assert (forced.actor_name, forced.comment) == ("olga", "Resend maintenance")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["use"], "Name the provider only with `use`"),
        (["status", "brevo"], "Name the provider only with `use`"),
        (["use", "ses", "--reason", "x"], "'ses' is neither the first provider (resend) nor the fallback"),
        (["use", "brevo"], "Forcing a provider needs a reason"),
        (["pause", "--provider", "ses", "--reason", "x"], "'ses' is not a configured provider"),
        (["use", "automatic"], "Neither resend nor brevo is paused"),
    ],
)
def test_the_command_refuses_what_does_not_fit_and_changes_nothing(with_fallback, arguments, words):
    with pytest.raises(CommandError, match=re.escape(words)):
        call_command("provider", *arguments, stdout=StringIO())
    assert not ProviderCircuit.objects.exists()
    assert not OperatorAction.objects.exists()


def test_without_a_fallback_there_is_nothing_to_force(settings):
    settings.MAIL_PROVIDER_FALLBACK = ""
    with pytest.raises(CommandError, match="No fallback is set"):
        call_command("provider", "use", "resend", "--reason", "x", stdout=StringIO())


def test_metrics_say_which_provider_sends_and_how_many_each_sent(with_fallback, client):
    NotificationFactory.create(status="sent", provider="brevo")
    provider_pause(provider="resend", actor_name="ops", reason="maintenance")
    exposition = client.get("/metrics/deployment").content.decode()  # the database's figures
    assert 'orders_mail_provider_sending{provider="brevo",role="fallback"} 1.0' in exposition
    assert 'orders_mail_provider_sending{provider="resend",role="first"} 0.0' in exposition
    assert 'orders_provider_circuit_state{provider="resend",state="paused"} 1.0' in exposition
    assert 'orders_provider_circuit_state{provider="brevo",state="closed"} 1.0' in exposition
    assert 'orders_notifications_sent_by_provider{provider="brevo"} 1.0' in exposition


def test_the_fallback_sends_since_the_first_went_down_through_every_probe_until_it_is_back(with_fallback):
    assert (sending_now().provider, sending_now().since) == ("resend", None)
    _open("resend")
    down_since = ProviderCircuit.objects.get(provider="resend").down_since
    assert down_since is not None
    assert (sending_now().provider, sending_now().since) == ("brevo", down_since)
    # a probe that fails opens the circuit again: the fallback still sends since the same moment
    ProviderCircuit.objects.filter(provider="resend").update(retry_at=timezone.now() - timedelta(seconds=1))
    probe = _claim(OrderFactory.create())
    assert isinstance(probe, Claim)
    assert probe.probe
    failed = [SendResult(Outcome.TRANSIENT, http_status=503)]
    circuit_record(failed, seen=probe.circuit, provider="resend", now=timezone.now())
    assert ProviderCircuit.objects.get(provider="resend").state == Status.OPEN
    assert (sending_now().provider, sending_now().since) == ("brevo", down_since)
    # the next probe goes through: the first sends again, since then
    ProviderCircuit.objects.filter(provider="resend").update(retry_at=timezone.now() - timedelta(seconds=1))
    probe = _claim(OrderFactory.create())
    assert isinstance(probe, Claim)
    circuit_record([SendResult(Outcome.ACCEPTED)], seen=probe.circuit, provider="resend", now=timezone.now())
    circuit = ProviderCircuit.objects.get(provider="resend")
    assert (circuit.state, circuit.down_since) == (Status.CLOSED, None)
    assert (sending_now().provider, sending_now().since) == ("resend", circuit.up_since)
    assert "Sending through resend since " in sending_now().describe()


def test_a_reviewers_retry_is_judged_by_the_provider_that_may_have_the_email(with_fallback):
    order = OrderFactory.create()
    notification = _confirmation(order)
    hour_ago = timezone.now() - timedelta(hours=1)
    DeliveryAttemptFactory.create(
        notification=notification, outcome="unknown", provider="brevo", started_at=hour_ago
    )
    notification.refresh_from_db()
    # Brevo remembers a key 15 minutes: its resend is no longer safe (Resend's 24 h do not count)
    assert "longer ago than brevo remembers keys" in retry_dead_end(notification)
    other = _confirmation(OrderFactory.create())
    DeliveryAttemptFactory.create(notification=other, outcome="unknown", provider="ses")
    other.refresh_from_db()
    assert "through ses, which is not a provider this email could be resent through" in retry_dead_end(other)
