"""Transient failures are retried for the event type's time budget, not for a count, with a
real worker, RabbitMQ's delayed-delivery queues and the mail simulator answering 503: every
retry message carries the time of the first failure (a header Celery copies into each retry),
so an outage shorter than the budget costs no email however many tries it takes, and one
longer than the budget ends `failed` in the dead-letter queue once the budget is spent."""

import time

import pytest

from messaging.dead_lettering import CLASS_HEADER
from tests.factories import OrderFactory
from tests.integration.test_failure_classes import _dead_letters, _final, _outcomes

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

# Retries 1 s apart for a budget of 6 s (the count cap left at its default of 500).
SHORT_BUDGET = {
    "DELIVERY_RETRY_BUDGET_SECONDS": "6",
    "DELIVERY_RETRY_BASE_DELAY_SECONDS": "1",
    "DELIVERY_RETRY_MAX_DELAY_SECONDS": "1",
}


def test_an_outage_shorter_than_the_budget_costs_no_email_however_many_tries_it_takes(mailsim, start_worker):
    mailsim.set_faults({"kind": "503", "times": 4})  # more tries than the old count of retries
    start_worker(**{**SHORT_BUDGET, "DELIVERY_RETRY_BUDGET_SECONDS": "60"})
    notification = _final(OrderFactory.create(customer_email="outage@example.com"))
    assert notification.status == "sent"
    assert _outcomes(notification) == ["transient"] * 4 + ["accepted"]
    assert len(mailsim.messages()) == 1


def test_an_outage_longer_than_the_budget_fails_once_the_budget_is_spent(mailsim, start_worker):
    mailsim.set_faults({"kind": "503"})
    start_worker(**SHORT_BUDGET)
    started = time.monotonic()
    notification = _final(OrderFactory.create(customer_email="long-outage@example.com"), timeout=60)
    took = time.monotonic() - started
    assert (notification.status, notification.error_class) == ("failed", "retries_exhausted")
    assert "attempts over" in notification.last_error
    assert "the retry budget" in notification.last_error
    attempts = list(notification.attempts.order_by("number"))
    assert all(attempt.outcome == "transient" for attempt in attempts)
    # then: the last attempt came once 6 s had passed since the first failure, not before
    first_failed = attempts[0].finished_at
    assert first_failed is not None
    spent = attempts[-1].started_at - first_failed
    assert spent.total_seconds() >= 6
    assert attempts[-2].started_at - first_failed < spent
    assert len(attempts) >= 4  # about one a second (each retry waits at least 1 s)
    assert took < 40
    [dead] = _dead_letters()
    assert dead["headers"][CLASS_HEADER] == "retries_exhausted"
    assert mailsim.messages() == []
