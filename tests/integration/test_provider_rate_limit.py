"""The sending rate toward the provider, shared by every worker (MAIL_PROVIDER_RATE_LIMIT):
a backlog drains at the limit, with real worker processes, RabbitMQ and the mail simulator
recording when each call arrived; the token bucket itself against PostgreSQL's clock."""

import time
from datetime import datetime

import pytest

from messaging.errors import WaitError
from notifications.delivery.rate_limit import rate_token_take
from notifications.models import Notification
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

RATE = 2  # calls per second; the bucket holds one second of them


def test_a_backlog_drains_at_the_limit_across_two_worker_processes_and_every_email_is_sent_once(
    mailsim, start_worker
):
    orders = [OrderFactory(customer_email=f"paced{n}@example.com") for n in range(10)]
    # when two workers of two processes each take the backlog at once
    start_worker(MAIL_PROVIDER_RATE_LIMIT=str(RATE))
    start_worker(MAIL_PROVIDER_RATE_LIMIT=str(RATE))
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == len(orders),
        timeout=40,
        message="every email sent",
    )
    # then: once each, and never more than the bucket allows (2 at once, then 2 a second)
    assert len(mailsim.messages()) == len(orders)
    arrivals = sorted(datetime.fromisoformat(entry["at"]) for entry in mailsim.requests_log())
    assert len(arrivals) == len(orders)
    for first, fifth in zip(arrivals, arrivals[4:], strict=False):
        assert (fifth - first).total_seconds() >= 0.9, arrivals  # 5 calls take 1.5 s at 2/s
    assert (arrivals[-1] - arrivals[0]).total_seconds() >= (len(orders) - RATE) / RATE - 0.5
    # the waiting emails said why
    assert not Notification.objects.exclude(status="sent").exists()


def test_the_bucket_gives_one_second_of_calls_then_refills_at_the_limit(settings):
    settings.MAIL_PROVIDER_RATE_LIMIT = RATE
    assert rate_token_take(provider="resend") is None
    assert rate_token_take(provider="resend") is None
    waiting = rate_token_take(provider="resend")
    assert isinstance(waiting, WaitError)
    assert "2 emails per second" in waiting.reason
    assert waiting.retry_after == 1
    time.sleep(0.6)  # a token and a bit
    assert rate_token_take(provider="resend") is None
    assert isinstance(rate_token_take(provider="resend"), WaitError)
    # with no limit set, nothing is read or written
    settings.MAIL_PROVIDER_RATE_LIMIT = 0
    assert all(rate_token_take(provider="resend") is None for _ in range(20))
