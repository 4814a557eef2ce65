"""When a failed delivery is tried again and for how long (messaging/retry_policy.py): the delay
doubles from 5 s up to the event type's longest pause, with up to 20 % jitter, whole seconds
and at least 1, never before the provider's Retry-After; the retry budget counts from the first
failure, which every retry message carries, and a wait that is no failure uses none of it. And
the retry a failure makes of it (messaging/retries.py, `retry_plan`), and the event task's
`retry`: none once the budget is spent.

tests/integration/test_retry_budget.py: the same with a real worker and RabbitMQ's delayed
delivery; tests/integration/test_mail_provider.py: the HTTP adapter whose answers call for it."""

import random
from datetime import UTC, datetime, timedelta

import pytest
from celery.app.task import Context
from django.db import OperationalError

from messaging.dispatch import Delivery
from messaging.errors import InFlightError, TransientError, WaitError
from messaging.registry import event_type_get
from messaging.retries import retry_plan
from messaging.retry_policy import (
    RETRY_SINCE_HEADER,
    WAITING_SINCE_HEADER,
    budget_spent,
    max_retries,
    retry_budget,
    retry_delay_seconds,
    retry_max_delay_seconds,
    retry_since_header,
    retry_since_of,
)
from messaging.tasks import handle_event

FIRST = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
EMAIL_CAP = 1800  # an email's longest pause (order.created): 30 min


@pytest.mark.parametrize(
    ("retry", "low", "high"),
    [(1, 5, 6), (2, 10, 12), (3, 20, 24), (5, 80, 96), (9, 1280, 1536), (12, 1800, 2160)],
)
def test_an_emails_retry_delay_doubles_from_5_s_up_to_30_min_with_up_to_20_percent_jitter(retry, low, high):
    cap = retry_max_delay_seconds(event_type_get("order.created"))
    delays = {retry_delay_seconds(retry_number=retry, max_delay_seconds=cap) for _ in range(200)}
    assert min(delays) >= low
    assert max(delays) <= high
    assert all(isinstance(delay, int) for delay in delays)


def test_the_retry_delay_honours_retry_after_and_is_never_below_one_second():
    assert retry_delay_seconds(retry_number=1, retry_after=30) >= 30
    assert retry_delay_seconds(retry_number=0, retry_after=0) >= 1


@pytest.fixture
def jitter(monkeypatch):
    """The jitter at one end of its range (random.uniform's low or high), so a delay's bounds
    are exact rather than sampled."""

    def at(end: str) -> None:
        monkeypatch.setattr(random, "uniform", lambda low, high: low if end == "least" else high)

    return at


@pytest.mark.parametrize(
    ("retry", "retry_after", "cap", "least", "most"),
    [
        (1, None, EMAIL_CAP, 5, 6),
        (0, None, EMAIL_CAP, 5, 6),  # a retry number below 1 counts as the first
        (-3, None, EMAIL_CAP, 5, 6),
        (2, None, EMAIL_CAP, 10, 12),
        (9, None, EMAIL_CAP, 1280, 1536),  # the last doubling under the cap
        (10, None, EMAIL_CAP, 1800, 2160),  # 2560 s, capped at 30 min
        (500, None, EMAIL_CAP, 1800, 2160),  # the count's safety cap: still the cap
        (7, None, 300, 300, 360),  # a provider event's cap of 5 min (320 s capped)
        (10, None, None, 300, 360),  # no cap given: the default of a type-less delivery, 5 min
        (1, None, 2.5, 3, 3),  # whole seconds, rounded up
        (1, None, 0.5, 1, 1),  # at least 1 s: delayed delivery refuses a countdown below 1
        (1, 30, EMAIL_CAP, 30, 36),  # the provider's Retry-After, above the doubling
        (1, 5.2, EMAIL_CAP, 6, 7),
        (5, 30, EMAIL_CAP, 80, 96),  # a Retry-After below the doubling changes nothing
        (1, 0, EMAIL_CAP, 5, 6),
        (1, 3600, EMAIL_CAP, 3600, 4320),  # above the cap: never earlier than the provider said
    ],
)
def test_the_retry_delay_at_either_end_of_its_jitter(jitter, retry, retry_after, cap, least, most):
    for end, expected in (("least", least), ("most", most)):
        jitter(end)
        delay = retry_delay_seconds(retry_number=retry, retry_after=retry_after, max_delay_seconds=cap)
        assert (end, delay) == (end, expected)
        assert isinstance(delay, int)


def test_the_first_delay_and_the_cap_are_settings(jitter, settings):
    jitter("least")
    settings.DELIVERY_RETRY_BASE_DELAY_SECONDS = 1
    assert [retry_delay_seconds(retry_number=n, max_delay_seconds=EMAIL_CAP) for n in (1, 2, 3)] == [1, 2, 4]
    settings.DELIVERY_RETRY_BASE_DELAY_SECONDS = 0  # no pause at all is still 1 s
    assert retry_delay_seconds(retry_number=3, max_delay_seconds=EMAIL_CAP) == 1
    settings.DELIVERY_RETRY_BASE_DELAY_SECONDS, settings.DELIVERY_RETRY_MAX_DELAY_SECONDS = 5, 7
    assert retry_delay_seconds(retry_number=4) == 7  # the setting caps a type-less delivery


def test_each_event_type_has_its_retry_budget_and_the_settings_can_replace_all(settings):
    email, provider_event = event_type_get("order.created"), event_type_get("mail.provider_event")
    assert (retry_budget(email), retry_max_delay_seconds(email)) == (timedelta(hours=24), 1800)
    assert (retry_budget(provider_event), retry_max_delay_seconds(provider_event)) == (
        timedelta(hours=1),
        300,
    )
    # a delivery whose type is unknown (an envelope that names none) gets an hour and 5 min
    assert (retry_budget(None), retry_max_delay_seconds(None)) == (timedelta(hours=1), 300)
    settings.DELIVERY_RETRY_BUDGET_SECONDS, settings.DELIVERY_RETRY_MAX_DELAY_SECONDS = 20, 2
    assert (retry_budget(email), retry_max_delay_seconds(email)) == (timedelta(seconds=20), 2)
    assert (retry_budget(None), retry_max_delay_seconds(None)) == (timedelta(seconds=20), 2)


def test_the_count_of_retries_is_a_safety_cap_from_the_settings(settings):
    assert max_retries() == 500
    settings.DELIVERY_MAX_RETRIES = 3
    assert max_retries() == 3


@pytest.mark.parametrize(
    ("since", "spent"),
    [
        (None, False),  # never failed: no budget is running
        (FIRST, False),
        (FIRST - timedelta(hours=24) + timedelta(microseconds=1), False),
        (FIRST - timedelta(hours=24), True),  # spent at the moment it is used up
        (FIRST - timedelta(days=3), True),
        (FIRST + timedelta(minutes=1), False),  # another host's clock ahead: not spent
    ],
)
def test_the_budget_is_spent_once_the_time_since_the_first_failure_reaches_it(since, spent):
    assert budget_spent(retry_since=since, budget=timedelta(hours=24), now=FIRST) is spent


def test_the_budget_counts_from_the_first_failure_which_every_retry_message_carries():
    first = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    # the first failure stamps its time; later retries keep it (and the message's other headers)
    headers = retry_since_header({"trace": "t1"}, first)
    assert headers == {"trace": "t1", RETRY_SINCE_HEADER: first.isoformat()}
    assert retry_since_header(headers, first + timedelta(hours=3)) == headers
    assert retry_since_of(headers) == first
    assert retry_since_of({RETRY_SINCE_HEADER: "not a time"}) is None
    assert retry_since_of(None) is None


def test_a_wait_that_is_no_failure_moves_the_first_failures_time_by_the_time_actually_waited():
    first = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    failed = retry_since_header(None, first)
    # a wait before anything failed starts no budget
    assert retry_since_header(None, first, waiting=True) == {}
    # the provider takes no calls at 10:05: the message waits, and comes back at 10:35
    waiting = retry_since_header(failed, first + timedelta(minutes=5), waiting=True)
    back = first + timedelta(minutes=35)
    assert retry_since_of(waiting, back) == first + timedelta(minutes=30)
    # it fails again at 10:35: the next retry carries the moved time and no wait
    again = retry_since_header(waiting, back)
    assert again == {RETRY_SINCE_HEADER: (first + timedelta(minutes=30)).isoformat()}


def test_a_second_wait_in_a_row_keeps_the_first_ones_time_off_the_budget():
    failed = retry_since_header({"trace": "t1"}, FIRST)
    waiting = retry_since_header(failed, FIRST + timedelta(minutes=5), waiting=True)
    # back at 10:35, and the provider still takes no calls: it waits again
    again = retry_since_header(waiting, FIRST + timedelta(minutes=35), waiting=True)
    assert again == {
        "trace": "t1",
        RETRY_SINCE_HEADER: (FIRST + timedelta(minutes=30)).isoformat(),
        WAITING_SINCE_HEADER: (FIRST + timedelta(minutes=35)).isoformat(),
    }
    # back at 11:00: 55 min after the first failure, of which 5 min were failing
    assert retry_since_of(again, FIRST + timedelta(hours=1)) == FIRST + timedelta(minutes=55)


def test_a_wait_before_any_failure_drops_a_stale_wait_and_keeps_the_other_headers():
    headers = {"trace": "t1", WAITING_SINCE_HEADER: FIRST.isoformat()}
    assert retry_since_header(headers, FIRST + timedelta(minutes=1), waiting=True) == {"trace": "t1"}


@pytest.mark.parametrize(
    ("headers", "since"),
    [
        # a wait stamped by a host whose clock is ahead: no time is taken off
        ({RETRY_SINCE_HEADER: FIRST.isoformat(), WAITING_SINCE_HEADER: "2026-12-01T11:00:00+00:00"}, FIRST),
        # a wait header that is no time: the first failure's time as it is
        ({RETRY_SINCE_HEADER: FIRST.isoformat(), WAITING_SINCE_HEADER: "soon"}, FIRST),
        ({RETRY_SINCE_HEADER: FIRST.isoformat(), WAITING_SINCE_HEADER: 1733047200}, FIRST),
        # headers we did not write: no time (the count cap still ends the retries)
        ({RETRY_SINCE_HEADER: 1733047200}, None),
        ({RETRY_SINCE_HEADER: ""}, None),
        ({RETRY_SINCE_HEADER: "2026-12-01T10:00:00"}, None),  # no offset: ours always have one
        ({RETRY_SINCE_HEADER: FIRST.isoformat(), WAITING_SINCE_HEADER: "2026-12-01T10:05:00"}, FIRST),
        ({WAITING_SINCE_HEADER: FIRST.isoformat()}, None),
        ({}, None),
    ],
)
def test_the_first_failures_time_read_from_headers_of_any_shape(headers, since):
    assert retry_since_of(headers, FIRST + timedelta(minutes=30)) == since
    # and the budget is judged on it without error
    assert budget_spent(retry_since=since, budget=timedelta(hours=1), now=FIRST + timedelta(hours=2)) is (
        since is not None
    )


def test_an_attempt_is_final_once_the_budget_is_spent_or_the_count_cap_is_reached():
    def delivery(*, retries=3, since_hours_ago=None):
        since = None if since_hours_ago is None else datetime.now(UTC) - timedelta(hours=since_hours_ago)
        return Delivery(
            worker="w", retries=retries, max_retries=500, retry_since=since, retry_budget=timedelta(hours=24)
        )

    assert delivery().final_attempt is False  # the first delivery: never failed before
    assert delivery(since_hours_ago=23).final_attempt is False
    assert delivery(since_hours_ago=25).final_attempt is True
    assert delivery(retries=500, since_hours_ago=1).final_attempt is True  # the safety cap


# -- the retry a failed delivery makes (messaging/retries.py)

ENVELOPE = {"event_type": "order.created", "event_id": "e1", "schema_version": 1, "order_id": "o1"}


def _request(*, retries: int = 0, headers: dict | None = None, envelope: dict | None = ENVELOPE) -> Context:
    return Context(id="t1", args=[envelope], kwargs={}, retries=retries, headers=headers or {})


def test_a_failure_is_retried_later_on_its_types_queue_counting_from_its_first_failure(jitter):
    jitter("least")
    plan = retry_plan(_request(retries=2), TransientError("provider answered 503"))
    assert (plan.retries, plan.countdown, plan.queue, plan.budget_spent) == (
        3,
        20,
        "orders.confirmations",
        False,
    )
    assert set(plan.headers) == {RETRY_SINCE_HEADER}  # stamped now: the first failure
    # a Retry-After above the doubling sets the delay; the type's cap (30 min) bounds it
    assert retry_plan(_request(), TransientError("busy", retry_after=90)).countdown == 90
    assert retry_plan(_request(retries=20), TransientError("down")).countdown == EMAIL_CAP


def test_a_failure_after_the_types_budget_has_no_retry_left():
    hours_ago = {RETRY_SINCE_HEADER: (datetime.now(UTC) - timedelta(hours=25)).isoformat()}
    assert retry_plan(_request(retries=40, headers=hours_ago), TransientError("down")).budget_spent is True
    # the provider events' budget is an hour: 2 hours is spent for them, not for an email
    two_hours = {RETRY_SINCE_HEADER: (datetime.now(UTC) - timedelta(hours=2)).isoformat()}
    provider_event = {"event_type": "mail.provider_event", "event_id": "e2", "schema_version": 1}
    assert retry_plan(_request(headers=two_hours, envelope=provider_event), TransientError("x")).budget_spent
    assert not retry_plan(_request(headers=two_hours), TransientError("x")).budget_spent


@pytest.mark.parametrize(
    ("error", "countdown"),
    [
        (InFlightError("another worker is sending it"), 2),
        (WaitError("the circuit is open", retry_after=2.3), 3),  # whole seconds, up
        (WaitError("paused", retry_after=0), 1),  # at least 1 s
    ],
)
@pytest.mark.parametrize(("retries", "carried"), [(0, 1), (4, 4)])
def test_a_wait_keeps_its_retry_number_and_spends_no_budget(error, countdown, retries, carried):
    days_ago = {RETRY_SINCE_HEADER: (datetime.now(UTC) - timedelta(days=3)).isoformat()}
    plan = retry_plan(_request(retries=retries, headers=days_ago), error)
    assert (plan.retries, plan.countdown, plan.budget_spent) == (carried, countdown, False)
    assert set(plan.headers) == {RETRY_SINCE_HEADER, WAITING_SINCE_HEADER}


def test_a_retry_carries_none_of_rabbitmqs_headers_of_this_trip_and_keeps_the_others():
    headers = {"x-death": [{"count": 1}], "x-delivery-count": 2, "trace": "t1"}
    plan = retry_plan(_request(headers=headers), TransientError("down"))
    assert set(plan.headers) == {"trace", RETRY_SINCE_HEADER}


def test_a_delivery_of_no_known_type_is_retried_with_the_defaults():
    plan = retry_plan(_request(envelope={"event_type": "order.unknown"}), TransientError("down"))
    assert (plan.queue, plan.budget_spent) == (None, False)
    assert retry_plan(_request(envelope=None), TransientError("down")).queue is None
    # a delay the caller chose (an ETA, or Celery's countdown) is kept
    assert retry_plan(_request(), TransientError("down"), countdown=42).countdown == 42
    assert retry_plan(_request(), TransientError("down"), eta=FIRST).countdown is None


def test_every_handlers_retries_end_with_its_types_budget_not_only_the_emails():
    # given a delivery of the sales counter's event whose first failure was two hours ago
    # (its type's budget is one hour), failing again because the database is away
    envelope = {"event_type": "order.paid", "event_id": "e1", "schema_version": 1, "order_id": "o1"}
    since = (datetime.now(UTC) - timedelta(hours=2)).isoformat()
    handle_event.push_request(
        id="t1",
        args=[envelope],
        kwargs={},
        retries=3,
        headers={RETRY_SINCE_HEADER: since},
        called_directly=False,
    )
    try:
        # then no retry is published (nothing reaches a broker): the error itself is raised,
        # and the message fails
        with pytest.raises(OperationalError, match="database away"):
            handle_event.retry(exc=OperationalError("database away"))
    finally:
        handle_event.pop_request()
