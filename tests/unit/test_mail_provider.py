"""The delay before a delivery is retried: doubling, with jitter, within bounds, honouring the
provider's Retry-After. (tests/integration/test_mail_provider.py: the HTTP adapter itself.)"""

import pytest

from messaging.retry_policy import retry_delay_seconds


@pytest.mark.parametrize(
    ("retry", "low", "high"), [(1, 5, 6), (2, 10, 12), (3, 20, 24), (5, 60, 72), (9, 60, 72)]
)
def test_the_retry_delay_doubles_from_5_s_up_to_60_s_with_up_to_20_percent_jitter(retry, low, high):
    delays = {retry_delay_seconds(retry_number=retry) for _ in range(200)}
    assert min(delays) >= low
    assert max(delays) <= high
    assert all(isinstance(delay, int) for delay in delays)


def test_the_retry_delay_honours_retry_after_and_is_never_below_one_second():
    assert retry_delay_seconds(retry_number=1, retry_after=30) >= 30
    assert retry_delay_seconds(retry_number=0, retry_after=0) >= 1
