"""The delay before a delivery is retried: doubling, with jitter, within bounds, honouring the
provider's Retry-After. (tests/integration/test_mail_provider.py: the HTTP adapter itself.)"""

from datetime import UTC, datetime, timedelta

import pytest

from messaging.dispatch import Delivery
from messaging.registry import event_type_get
from messaging.retry_policy import (
    RETRY_SINCE_HEADER,
    retry_budget,
    retry_delay_seconds,
    retry_max_delay_seconds,
    retry_since_header,
    retry_since_of,
)


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


def test_each_event_type_has_its_retry_budget_and_the_settings_can_replace_all(settings):
    email, provider_event = event_type_get("order.created"), event_type_get("mail.provider_event")
    assert (retry_budget(email), retry_max_delay_seconds(email)) == (timedelta(hours=24), 1800)
    assert (retry_budget(provider_event), retry_max_delay_seconds(provider_event)) == (
        timedelta(hours=1),
        300,
    )
    settings.DELIVERY_RETRY_BUDGET_SECONDS, settings.DELIVERY_RETRY_MAX_DELAY_SECONDS = 20, 2
    assert (retry_budget(email), retry_max_delay_seconds(email)) == (timedelta(seconds=20), 2)


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
