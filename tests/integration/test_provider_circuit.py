"""The provider's circuit breaker and an operator's pause, with real worker processes, RabbitMQ
and the mail simulator: during an outage the workers stop calling the provider after a few
failures, single probes test it, the emails wait without using up their retry budget, and
when it is back every email is sent, once; `manage.py provider pause` holds every email
until `resume`. The state transitions themselves are checked against PostgreSQL."""

import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from messaging.errors import WaitError
from notifications.delivery.circuit import CLOSED, GO, PROBE, CircuitSeen, circuit_gate, circuit_record
from notifications.models import Notification, OperatorAction, ProviderCircuit
from notifications.providers.base import Outcome, SendResult
from tests.broker import queue_ready_count
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("clean_queues"),
    pytest.mark.long_running,
]

# A budget of 10 s, retries 1 s apart; the circuit opens after 3 failures in a row for 2 s.
# The outage lasts 15 s: longer than the budget, which only the failed calls use (the first
# ones, and the probes an email happens to win).
OUTAGE_SETTINGS = {
    "DELIVERY_RETRY_BUDGET_SECONDS": "10",
    "DELIVERY_RETRY_BASE_DELAY_SECONDS": "1",
    "DELIVERY_RETRY_MAX_DELAY_SECONDS": "1",
    "MAIL_PROVIDER_CIRCUIT_FAILURES": "3",
    "MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS": "2",
}
ORDERS = 10
OUTAGE_SECONDS = 15


def _statuses() -> dict[str, int]:
    counts: dict[str, int] = {}
    for status in Notification.objects.values_list("status", flat=True):
        counts[status] = counts.get(status, 0) + 1
    return counts


def test_an_outage_longer_than_the_budget_costs_no_email_and_few_calls(mailsim, start_worker):
    mailsim.set_faults({"kind": "503"})
    start_worker(**OUTAGE_SETTINGS)
    orders = [OrderFactory.create(customer_email=f"outage{n}@example.com") for n in range(ORDERS)]
    # when the provider answers 503 to everything for longer than the emails' retry budget
    wait_until(
        lambda: ProviderCircuit.objects.filter(state__in=["open", "half_open"]).exists(),
        timeout=15,
        message="the circuit open",
    )
    time.sleep(OUTAGE_SECONDS)
    during = mailsim.requests_log()
    waiting = Notification.objects.filter(
        status="pending", last_error__startswith="The mail provider"
    ).count()
    mailsim.set_faults()  # the provider is back
    # then every email is sent, once, none failed or dead-lettered
    wait_until(lambda: _statuses() == {"sent": ORDERS}, timeout=40, message=f"all sent, now {_statuses()}")
    assert len(mailsim.messages()) == ORDERS
    assert queue_ready_count("orders.confirmations.dlq") == 0
    assert {n.order_id for n in Notification.objects.all()} == {order.id for order in orders}
    # and while it was down the workers called it a few times, not once a second per email
    # (without the breaker: about ORDERS per second, 150 calls in 15 s)
    assert all(entry["status"] == 503 for entry in during)
    assert len(during) <= 3 + 2 * (OUTAGE_SECONDS // 2 + 3), len(during)
    assert waiting > 0  # the emails said why they waited
    assert not Notification.objects.filter(status="failed").exists()
    assert ProviderCircuit.objects.get().state == "closed"


def test_a_paused_provider_holds_every_email_until_it_is_resumed(mailsim, start_worker):
    start_worker(**OUTAGE_SETTINGS)
    out = StringIO()
    with pytest.raises(CommandError, match="needs a reason"):
        call_command("provider", "pause", stdout=out)
    call_command("provider", "pause", "--reason", "Resend maintenance", "--actor", "olga", stdout=out)
    assert "paused by olga (Resend maintenance)" in out.getvalue()
    order = OrderFactory.create(customer_email="paused@example.com")
    notification = wait_until(
        lambda: Notification.objects.filter(order=order, last_error__contains="paused by olga").first(),
        timeout=20,
        message="the email waiting for the pause",
    )
    assert notification.status == "pending"
    time.sleep(12)  # longer than the retry budget: a pause uses none of it
    assert mailsim.requests_log() == []
    # the email looked again meanwhile (every 2 s here), yet its age runs from when it became
    # pending, so the oldest-unfinished alert still sees an email waiting through an outage
    waited = Notification.objects.get(pk=notification.pk)
    assert waited.error_class == "waiting"
    assert waited.status_changed_at == notification.status_changed_at
    status = StringIO()
    call_command("provider", "status", stdout=status)
    assert "1 email(s) wait for it." in status.getvalue()
    # when
    call_command("provider", "resume", "--actor", "olga", stdout=StringIO())
    # then (a paused email looks again every MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS, 2 s here)
    sent = wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").first(), timeout=20, message="sent"
    )
    assert sent.attempt_count == 1
    assert len(mailsim.messages()) == 1
    assert list(OperatorAction.objects.order_by("created_at").values_list("action", "actor_name")) == [
        ("provider_pause", "olga"),
        ("provider_resume", "olga"),
    ]
    with pytest.raises(CommandError, match="is not paused"):
        call_command("provider", "resume", stdout=StringIO())


# --- the transitions, against PostgreSQL -----------------------------------------------------------


def _failed(count: int = 1) -> list[SendResult]:
    return [SendResult(Outcome.TRANSIENT, http_status=503)] * count


def _seen() -> CircuitSeen:
    row = ProviderCircuit.objects.filter(provider="resend").first()
    if row is None:
        return CLOSED
    return CircuitSeen(row.state, row.failures, row.retry_at, row.probe_until, row.paused_by)


def test_failures_open_the_circuit_a_probe_tests_it_and_an_answer_closes_it(settings):
    settings.MAIL_PROVIDER_CIRCUIT_FAILURES, settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS = 3, 30
    now = timezone.now()
    circuit_record(_failed(2), seen=_seen(), provider="resend", now=now)
    assert (_seen().state, _seen().failures) == ("closed", 2)
    assert circuit_gate(_seen(), provider="resend", now=now) == GO
    circuit_record(_failed(), seen=_seen(), provider="resend", now=now)
    opened = ProviderCircuit.objects.get()
    assert (opened.state, opened.retry_at) == ("open", now + timedelta(seconds=30))
    # while open, every email waits until the probe time
    waiting = circuit_gate(_seen(), provider="resend", now=now + timedelta(seconds=10))
    assert isinstance(waiting, WaitError)
    assert waiting.retry_after is not None
    assert 20 <= waiting.retry_after <= 22
    # at the probe time exactly one email goes
    later = now + timedelta(seconds=31)
    assert circuit_gate(_seen(), provider="resend", now=later) == PROBE
    assert _seen().state == "half_open"
    assert isinstance(circuit_gate(_seen(), provider="resend", now=later), WaitError)
    # the probe fails: open again for the next period
    circuit_record(_failed(), seen=_seen(), provider="resend", now=later)
    assert (_seen().state, _seen().retry_at) == ("open", later + timedelta(seconds=30))
    # the next probe gets an answer (even a refusal is an answer): closed, counts reset
    probe_time = later + timedelta(seconds=31)
    assert circuit_gate(_seen(), provider="resend", now=probe_time) == PROBE
    circuit_record(
        [SendResult(Outcome.PERMANENT, http_status=422)], seen=_seen(), provider="resend", now=probe_time
    )
    assert (_seen().state, _seen().failures) == ("closed", 0)


def test_a_probe_whose_worker_died_is_taken_over_after_its_lease(settings):
    settings.MAIL_PROVIDER_CIRCUIT_FAILURES = 1
    now = timezone.now()
    circuit_record(_failed(), seen=_seen(), provider="resend", now=now)
    probe = now + timedelta(seconds=settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS + 1)
    assert circuit_gate(_seen(), provider="resend", now=probe) == PROBE  # taken; its worker dies
    assert isinstance(circuit_gate(_seen(), provider="resend", now=probe + timedelta(seconds=5)), WaitError)
    lease_over = probe + timedelta(seconds=settings.MAIL_PROVIDER_READ_TIMEOUT_SECONDS + 60)
    assert circuit_gate(_seen(), provider="resend", now=lease_over) == PROBE


def test_a_pause_holds_through_failures_and_answers(settings):
    call_command("provider", "pause", "--reason", "maintenance", stdout=StringIO())
    now = timezone.now()
    circuit_record(_failed(9), seen=_seen(), provider="resend", now=now)
    circuit_record([SendResult(Outcome.ACCEPTED)], seen=_seen(), provider="resend", now=now)
    assert _seen().state == "paused"
    waiting = circuit_gate(_seen(), provider="resend", now=now)
    assert isinstance(waiting, WaitError)
    assert "paused by" in waiting.reason
