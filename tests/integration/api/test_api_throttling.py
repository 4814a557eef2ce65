"""Requests per API token are limited, across processes, with 429 + Retry-After and a JSON body."""

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection
from rest_framework.test import APIClient

from apiauth.models import ApiTokenRateWindow
from apiauth.rate_limits import Rate, api_token_rate_window_hit, rate_parse
from apiauth.services import api_token_create
from orders.models import Order

pytestmark = pytest.mark.django_db


def _client(raw_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw_token}")
    return client


def _unknown_order(client: APIClient):
    # A cheap authenticated request: it is counted, and answered 404 while under the limit.
    return client.get(f"/api/orders/{uuid.uuid4()}/")


def test_a_token_over_its_limit_gets_429_with_retry_after_and_a_json_message(api_token, settings):
    # given: a day-long window, so no window boundary falls inside the test
    settings.API_THROTTLE_RATE = "3/day"
    client = _client(api_token)
    # when
    answers = [_unknown_order(client) for _ in range(4)]
    # then
    assert [answer.status_code for answer in answers] == [404, 404, 404, 429]
    refused = answers[-1]
    assert refused["Content-Type"] == "application/json"
    assert 1 <= int(refused["Retry-After"]) <= 86400
    body = refused.json()
    assert body["error"] == "throttled"
    assert "the limit is 3 requests per 86400 s" in body["message"]
    assert f"Expected available in {refused['Retry-After']} seconds" in body["message"]


def test_another_token_is_unaffected_by_a_throttled_one(api_token, settings):
    settings.API_THROTTLE_RATE = "2/day"
    busy = _client(api_token)
    for _ in range(3):
        _unknown_order(busy)
    assert _unknown_order(busy).status_code == 429
    # when
    _, other_token = api_token_create(name="other client")
    # then
    assert _unknown_order(_client(other_token)).status_code == 404


def test_requests_succeed_again_once_the_window_has_passed(api_token, settings):
    settings.API_THROTTLE_RATE = "2/s"
    client = _client(api_token)
    # given: requests until one is refused (a second boundary may reset the count once)
    answers = (_unknown_order(client) for _ in range(7))
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert int(refused["Retry-After"]) == 1
    # when
    time.sleep(1.05)
    # then
    assert _unknown_order(client).status_code == 404


def test_a_refused_request_does_not_reach_the_view(api_token, settings):
    settings.API_THROTTLE_RATE = "1/day"
    client = _client(api_token)
    body = {"customer_email": "ada@example.com", "amount": "1.00", "currency": "EUR"}
    assert client.post("/api/orders/", body, format="json").status_code == 201
    # when
    refused = client.post("/api/orders/", body, format="json")
    # then
    assert refused.status_code == 429
    assert Order.objects.count() == 1


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("600/min", Rate(600, 60)),
        ("10/s", Rate(10, 1)),
        ("5000/hour", Rate(5000, 3600)),
        ("100/10s", Rate(100, 10)),
        ("1/days", Rate(1, 86400)),
    ],
)
def test_rates_are_read_from_their_text(text, rate):
    assert rate_parse(text) == rate


@pytest.mark.parametrize("text", ["", "600", "0/min", "600/fortnight", "-1/s", "10/0s"])
def test_a_rate_that_cannot_be_read_is_refused(text):
    with pytest.raises(ValueError, match="is not a rate"):
        rate_parse(text)


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_of_one_token_are_each_counted_once():
    # given: 8 threads, each on its own database connection, hitting one token's counter
    token, _ = api_token_create(name="concurrent")
    rate = Rate(requests=10_000, window_seconds=86400)
    start = threading.Barrier(8)

    def hit_25_times() -> list[int]:
        start.wait()
        try:
            return [api_token_rate_window_hit(token=token, rate=rate).request_count for _ in range(25)]
        finally:
            connection.close()

    # when
    with ThreadPoolExecutor(max_workers=8) as pool:
        counts = [count for batch in pool.map(lambda _: hit_25_times(), range(8)) for count in batch]
    # then: no lost update and no count handed out twice
    assert sorted(counts) == list(range(1, 201))
    assert ApiTokenRateWindow.objects.get(token=token).request_count == 200


@pytest.mark.django_db(transaction=True)
def test_the_limit_holds_across_gunicorn_worker_processes(start_web):
    # given: three web processes sharing one limit
    _, raw_token = api_token_create(name="across processes")
    url = start_web(workers=3, API_THROTTLE_RATE="20/day")
    # when: 40 requests, each on a new connection, spread over the processes
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(
            pool.map(
                lambda _: (
                    requests.get(
                        f"{url}/api/orders/{uuid.uuid4()}/",
                        headers={"Authorization": f"Bearer {raw_token}", "Connection": "close"},
                        timeout=20,
                    ).status_code
                ),
                range(40),
            )
        )
    # then: exactly the limit got through
    assert sorted(statuses) == [404] * 20 + [429] * 20
