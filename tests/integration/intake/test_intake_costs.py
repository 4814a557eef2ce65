"""A shop platform's delivery, pinned in SQL statements and broker round trips like the order
API's (tests/integration/test_costs.py): a change that adds work to the intake fails here, not
in the bench's intake phase. (Statements counted include BEGIN and COMMIT.)"""

import copy
from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.integration.test_costs import broker_round_trips  # noqa: F401  # a fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

# the shop; BEGIN, the delivery's INSERT … ON CONFLICT, SAVEPOINT, the order's advisory lock,
# its locked read (none yet), the order, its first version, its two events (created, paid)
# and the confirmation's pending notification, its invoice's number (the series' counter row)
# and the invoice, RELEASE, the delivery's outcome, the look for deliveries waiting for this
# order, COMMIT; after the answer, both events marked published in one statement after their
# one confirm wait (messaging/relay/after_answer.py)
NEW_PAID_ORDER_STATEMENTS = 18
# the shop; BEGIN, the INSERT that finds the event stored, the stored delivery read for the
# answer, COMMIT
DUPLICATE_STATEMENTS = 5


@pytest.fixture
def deliver(client):
    Shop.objects.create(
        slug="tea-house",
        name="Tea House",
        platform=Shop.Platform.SHOPIFY,
        domain=shopify.SHOP_DOMAIN,
        webhook_secret=shopify.CLIENT_SECRET,
    )

    def post(payload: dict, event_id: str):
        body = shopify.body_of(payload)
        headers = shopify.signed_headers(body, topic="orders/create", event_id=event_id)
        response = client.post("/shops/tea-house/webhook", body, content_type="application/json", **headers)
        assert response.status_code == 200, response.content
        return response.json()["detail"]

    return post


def _counted(action: Callable[[], str]) -> tuple[str, list[str]]:
    """What `action` returned, and the statements it ran (their first 80 characters)."""
    with CaptureQueriesContext(connection) as captured:
        result = action()
    return result, [query["sql"][:80] for query in captured.captured_queries]


def _order(order_id: int) -> dict:
    payload = copy.deepcopy(shopify.ORDER)
    payload["id"] = order_id
    return payload


def test_a_new_paid_order_costs_one_transaction_and_one_publish_of_its_events(deliver, broker_round_trips):  # noqa: F811
    deliver(_order(1), "warm-1")  # the connection's first statements (prepared ones) are not counted
    broker_round_trips.update(batches=0, messages=0)
    # when
    detail, statements = _counted(lambda: deliver(_order(2), "event-2"))
    # then
    assert detail == "used"
    assert len(statements) <= NEW_PAID_ORDER_STATEMENTS, statements
    assert broker_round_trips == {"batches": 1, "messages": 2}


def test_a_retried_delivery_costs_a_short_transaction_and_no_publish(deliver, broker_round_trips):  # noqa: F811
    deliver(_order(1), "event-1")
    broker_round_trips.update(batches=0, messages=0)
    # when
    detail, statements = _counted(lambda: deliver(_order(1), "event-1"))
    # then
    assert detail == "duplicate"
    assert len(statements) <= DUPLICATE_STATEMENTS, statements
    assert broker_round_trips == {"batches": 0, "messages": 0}
