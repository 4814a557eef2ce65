"""The sending rate toward the provider, shared by every worker (MAIL_PROVIDER_RATE_LIMIT):
a backlog drains at the limit, with real worker processes, RabbitMQ and the mail simulator
recording when each call arrived; the token bucket itself against PostgreSQL's clock."""

import time
import uuid
from datetime import datetime

import pytest
from django.utils import timezone

from messaging.errors import WaitError
from messaging.registry import event_type_get
from notifications.delivery.circuit import CLOSED, circuit_record
from notifications.delivery.claims import Claim, ClaimRequest, notification_claims
from notifications.delivery.rate_limit import LEND_SECONDS, NOW, RateSlot, rate_token_take
from notifications.models import Notification
from notifications.providers.base import Outcome, SendResult
from notifications.providers.catalogue import mail_provider
from orders.events import ORDER_CREATED
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

RATE = 2  # calls per second; the bucket holds one second of them
# The bucket spaces the moments the calls may leave; the simulator sees when they arrive. A
# call that leaves late (its worker still committing its claim or rendering on a loaded
# machine) arrives closer to the next one by that delay; the next one is not earlier.
DEPARTURE_SLACK_SECONDS = 0.4


def test_a_backlog_drains_at_the_limit_across_two_worker_processes_and_every_email_is_sent_once(
    mailsim, start_worker
):
    orders = [OrderFactory.create(customer_email=f"paced{n}@example.com") for n in range(10)]
    # when two workers of two processes each take the backlog at once
    start_worker(MAIL_PROVIDER_RATE_LIMIT=str(RATE))
    start_worker(MAIL_PROVIDER_RATE_LIMIT=str(RATE))
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == len(orders),
        timeout=40,
        message="every email sent",
    )
    # then: once each, and never more than the bucket allows (one, then 2 a second)
    assert len(mailsim.messages()) == len(orders)
    arrivals = sorted(datetime.fromisoformat(entry["at"]) for entry in mailsim.requests_log())
    assert len(arrivals) == len(orders)
    for first, fifth in zip(arrivals, arrivals[4:], strict=False):
        # 5 calls take 2 s at 2/s
        assert (fifth - first).total_seconds() >= 4 / RATE - DEPARTURE_SLACK_SECONDS, arrivals
    assert (arrivals[-1] - arrivals[0]).total_seconds() >= (len(orders) - 1) / RATE - 0.5
    # the waiting emails said why
    assert not Notification.objects.exclude(status="sent").exists()


def test_the_bucket_gives_one_call_now_lends_a_second_of_calls_ahead_then_refills_at_the_limit(settings):
    settings.MAIL_PROVIDER_RATE_LIMIT = RATE
    assert rate_token_take(provider="resend") == NOW
    # the next calls are lent, each its 1/limit later: one second of them at most
    lent = [rate_token_take(provider="resend") for _ in range(int(RATE * LEND_SECONDS))]
    assert all(isinstance(slot, RateSlot) for slot in lent), lent
    waits = [slot.wait_seconds for slot in lent if isinstance(slot, RateSlot)]
    assert [round(wait, 1) for wait in waits] == [0.5, 1.0], waits  # 1/limit apart, up to a second
    waiting = rate_token_take(provider="resend")
    assert isinstance(waiting, WaitError)
    assert "2 emails per second" in waiting.reason
    assert waiting.retry_after == 1
    time.sleep(0.6)  # a token and a bit: one more may be lent, about a second ahead again
    again = rate_token_take(provider="resend")
    assert isinstance(again, RateSlot)
    assert 0.8 <= again.wait_seconds <= LEND_SECONDS, again
    assert isinstance(rate_token_take(provider="resend"), WaitError)
    # with no limit set, nothing is read or written
    settings.MAIL_PROVIDER_RATE_LIMIT = 0
    assert all(rate_token_take(provider="resend") == NOW for _ in range(20))


def test_emails_held_by_an_open_circuit_wait_for_it_and_take_no_sending_token(settings):
    # given: a limit of one call a second, and a circuit that one failure has just opened
    settings.MAIL_PROVIDER_RATE_LIMIT = 1
    settings.MAIL_PROVIDER_CIRCUIT_FAILURES, settings.MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS = 1, 30
    failure = SendResult(Outcome.TRANSIENT, http_status=503)
    circuit_record([failure], seen=CLOSED, provider="resend", now=timezone.now())
    orders = [OrderFactory.create(customer_email=f"held{n}@example.com") for n in range(3)]
    # when their emails come up
    waits = []
    for order in orders:
        request = ClaimRequest(order.id, event_type_get(ORDER_CREATED), uuid.uuid4(), worker="w")
        [waited] = notification_claims([request], provider=mail_provider())
        assert isinstance(waited, WaitError), waited
        waits.append(waited)
    # then each waits until the circuit may let it go, not a second for a token (a backlog
    # held by an outage went round every second while the circuit was open)
    assert [(wait.retry_after or 0) >= 25 for wait in waits] == [True] * 3, [w.retry_after for w in waits]
    assert all("failed 1 times in a row" in wait.reason for wait in waits)
    assert rate_token_take(provider="resend") == NOW  # the bucket's one token is still there


def test_a_backlog_claimed_at_once_gets_a_second_of_calls_each_in_its_slot_not_one_call(settings):
    # given: a limit of 2 a second and three emails whose messages come up at the same moment
    # (a backlog's waiting emails all come back a second after they were refused)
    settings.MAIL_PROVIDER_RATE_LIMIT = RATE
    orders = [OrderFactory.create(customer_email=f"slot{n}@example.com") for n in range(4)]
    requests = [
        ClaimRequest(order.id, event_type_get(ORDER_CREATED), uuid.uuid4(), worker="w") for order in orders
    ]
    # when they are claimed together
    before = time.monotonic()
    results = notification_claims(requests, provider=mail_provider())
    # then the bucket's call and the second lent ahead are claims, each with its slot 1/limit
    # apart (before: one claim, every other email back a second later to try again), and the
    # fourth waits (they are claimed in their orders' lock order, not the requests')
    claims = [result for result in results if isinstance(result, Claim)]
    assert len(claims) == 3, results
    slots = sorted(max(0.0, claim.call_not_before - before) for claim in claims)
    assert slots[0] == 0.0
    assert 0.4 <= slots[1] <= 0.6, slots
    assert 0.9 <= slots[2] <= 1.1, slots
    assert [type(result) for result in results].count(WaitError) == 1, results
