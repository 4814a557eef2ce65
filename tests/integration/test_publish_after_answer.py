"""A web request's committed events are published together once its answer is out
(messaging/relay/after_answer.py); outside a request, at once. Against RabbitMQ: the publish is
the real one, counted."""

import uuid
from decimal import Decimal

import pytest

from messaging.models import OutboxEvent
from messaging.relay.after_answer import request_batch_open, request_batch_publish
from orders.services import order_create
from tests.integration.test_costs import broker_round_trips  # noqa: F401  # a fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _two_events_committed() -> list[uuid.UUID]:
    """Two orders, each committed with its event."""
    orders = [
        order_create(customer_email=f"batch-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
        for n in range(2)
    ]
    events = OutboxEvent.objects.filter(aggregate_id__in=[str(order.id) for order in orders])
    return list(events.values_list("id", flat=True))


def _published(event_ids: list[uuid.UUID]) -> int:
    return OutboxEvent.objects.filter(id__in=event_ids, published_at__isnull=False).count()


def test_a_request_s_events_wait_for_its_end_and_go_out_in_one_publish(broker_round_trips):  # noqa: F811
    # given a request under way that committed two events
    request_batch_open()
    try:
        event_ids = _two_events_committed()
        # then nothing is published while the request is still answering
        assert _published(event_ids) == 0
        assert broker_round_trips == {"batches": 0, "messages": 0}
    finally:
        # when the request is finished
        request_batch_publish()
    # then both are published, in one batch
    assert _published(event_ids) == 2
    assert broker_round_trips == {"batches": 1, "messages": 2}


def test_what_a_request_left_unpublished_goes_out_when_the_next_one_starts(broker_round_trips):  # noqa: F811
    # given a request whose response the server never closed
    request_batch_open()
    event_ids = _two_events_committed()
    # when the next request starts
    request_batch_open()
    request_batch_publish()
    # then the first request's events went out
    assert _published(event_ids) == 2
    assert broker_round_trips == {"batches": 1, "messages": 2}


def test_outside_a_request_each_commit_publishes_at_once(broker_round_trips):  # noqa: F811
    event_ids = _two_events_committed()
    assert _published(event_ids) == 2
    assert broker_round_trips == {"batches": 2, "messages": 2}
