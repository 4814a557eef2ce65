"""The cost per order, pinned: SQL statements and broker round trips per created order, per
relayed event and per processed event. A change that adds work to the hot path fails here,
not in a benchmark nobody reads. (Statements counted include BEGIN and COMMIT.)"""

import cProfile
from decimal import Decimal

import pytest
from django.db import connection
from django.db.backends.signals import connection_created
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from messaging.dispatch import Delivery, event_dispatch, events_dispatch_batch
from messaging.models import OutboxEvent
from messaging.relay.publisher import ConfirmingPublisher
from messaging.relay.relay import relay_outbox_sweep
from orders.services import order_create
from tests.factories import UnpublishedOrderFactory
from tests.integration.api.test_shop_orders import SHOP_ORDER

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

# token; rate-limit count (one upsert, apiauth/rate_limits.py); BEGIN, order, outbox,
# notification, COMMIT; mark published; 2 reads for the answer
ORDER_API_STATEMENTS = 10
# claim: BEGIN, one locked read (order, notification, inbox, suppression, override), one
# UPDATE + INSERT of the attempt, COMMIT; the outcome with the inbox row: one statement
HANDLER_STATEMENTS = 5
# BEGIN, the locked read that finds the inbox row, COMMIT
DUPLICATE_STATEMENTS = 3
# a batch of N (the event task's, messaging/worker/batch_execution.py): the claim transaction (BEGIN, one
# locked read of all, per email the UPDATE + INSERT of its attempt, COMMIT), the outcome of
# all the accepted in one statement, as for one event: 1 per email and 4 per batch, so two
# commits for N emails
BATCH = 16
BATCH_STATEMENTS = BATCH + 4
# a batch: its claim (BEGIN, UPDATE … RETURNING the rows, COMMIT) and its mark; the sweep
# ends with one more claim, which finds none
STATEMENTS_PER_BATCH = 4
CLAIM_STATEMENTS = 3
# so a backlog in batches of 100 costs (3 * 4 + 3) / 300 = 0.05 statements per relayed event
SWEEP_STATEMENTS_PER_EVENT = 0.05


def _statements(action) -> int:
    with CaptureQueriesContext(connection) as captured:
        action()
    return len(captured.captured_queries)


@pytest.fixture
def broker_round_trips(monkeypatch) -> dict[str, int]:
    """Counts what this process's publishers send, in any thread (the sweep publishes from a
    thread of its own): a batch is one write of its messages and one wait for all their
    confirms. It wraps the real publish, which still goes to RabbitMQ."""
    counts = {"batches": 0, "messages": 0}
    publish = ConfirmingPublisher.publish

    def counting_publish(publisher, messages, **options):
        counts["batches"] += 1
        counts["messages"] += len(messages)
        return publish(publisher, messages, **options)

    monkeypatch.setattr(ConfirmingPublisher, "publish", counting_publish)
    return counts


def test_creating_an_order_through_the_api_costs_few_statements_and_one_broker_round_trip(
    api_token, broker_round_trips
):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    body = {"customer_email": "cost@example.com", "amount": "1.00", "currency": "EUR"}
    client.post("/api/orders/", body, format="json")  # warm: the token's last-used time is written once
    broker_round_trips.update(batches=0, messages=0)
    # when
    statements = _statements(lambda: client.post("/api/orders/", body, format="json"))
    # then
    assert statements <= ORDER_API_STATEMENTS
    assert broker_round_trips == {"batches": 1, "messages": 1}


def test_a_shops_order_costs_one_statement_more_than_the_short_one_its_first_version(
    api_token, broker_round_trips
):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    client.post("/api/orders/", SHOP_ORDER, format="json")  # warm, as above; then a new number
    broker_round_trips.update(batches=0, messages=0)
    # when
    statements = _statements(
        lambda: client.post("/api/orders/", {**SHOP_ORDER, "number": "1002"}, format="json")
    )
    # then
    assert statements <= ORDER_API_STATEMENTS + 1
    assert broker_round_trips == {"batches": 1, "messages": 1}


def test_relaying_a_backlog_costs_four_statements_and_one_broker_round_trip_per_batch(broker_round_trips):
    UnpublishedOrderFactory.create_batch(300)
    OutboxEvent.objects.update(next_attempt_at=timezone.now())
    broker_round_trips.update(batches=0, messages=0)
    opened: list[object] = []
    connection_created.connect(opened.append)  # every statement is counted on `connection`
    # when
    try:
        statements = _statements(lambda: relay_outbox_sweep(batch_size=100))
    finally:
        connection_created.disconnect(opened.append)
    # then: three batches of 100, and one more claim that finds nothing
    assert statements <= 3 * STATEMENTS_PER_BATCH + CLAIM_STATEMENTS
    assert statements / 300 <= SWEEP_STATEMENTS_PER_EVENT
    assert broker_round_trips == {"batches": 3, "messages": 300}
    assert not opened, "the sweep's statements ran on a connection this count does not see"


def test_processing_an_event_costs_a_claim_transaction_and_one_outcome_statement(mailsim):
    order = order_create(customer_email="handler@example.com", amount=Decimal("1.00"), currency="EUR")
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    delivery = Delivery(worker="cost pid 1", retries=0, max_retries=8)
    statements = _statements(lambda: event_dispatch(raw_envelope=envelope, delivery=delivery))
    assert statements == HANDLER_STATEMENTS
    # and a duplicate delivery costs the locked read that finds it done
    assert (
        _statements(lambda: event_dispatch(raw_envelope=envelope, delivery=delivery)) == DUPLICATE_STATEMENTS
    )


def test_a_batch_of_events_costs_two_commits_and_one_statement_per_email_and_four_per_batch(mailsim):
    orders = [
        order_create(customer_email=f"b{n}@example.com", amount=Decimal("1.00"), currency="EUR")
        for n in range(BATCH)
    ]
    envelopes = [OutboxEvent.objects.get(aggregate_id=str(order.id)).payload for order in orders]
    deliveries = [
        (envelope, Delivery(worker="cost pid 1", retries=0, max_retries=8)) for envelope in envelopes
    ]
    results: list = []
    statements = _statements(lambda: results.extend(events_dispatch_batch(deliveries)))
    assert results == ["sent"] * BATCH
    assert statements == BATCH_STATEMENTS, f"{statements / BATCH:.2f} per email"
    assert len(mailsim.messages()) == BATCH


def test_a_plain_confirmation_costs_the_worker_a_pinned_number_of_python_calls(mailsim):
    orders = [
        order_create(customer_email=f"c{n}@example.com", amount=Decimal("1.00"), currency="EUR")
        for n in range(PROFILED_CONFIRMATIONS + 3)
    ]
    envelopes = [OutboxEvent.objects.get(aggregate_id=str(order.id)).payload for order in orders]
    delivery = Delivery(worker="cost pid 1", retries=0, max_retries=8)
    for envelope in envelopes[:3]:  # templates compiled, statements prepared, imports done
        event_dispatch(raw_envelope=envelope, delivery=delivery)
    profiler = cProfile.Profile()
    results = []
    profiler.enable()
    for envelope in envelopes[3:]:
        results.append(event_dispatch(raw_envelope=envelope, delivery=delivery))
    profiler.disable()
    assert results == ["sent"] * PROFILED_CONFIRMATIONS
    calls = profiler.getstats()
    per_email = sum(entry.callcount for entry in calls) / PROFILED_CONFIRMATIONS
    assert per_email <= PYTHON_CALLS_PER_CONFIRMATION, f"{per_email:.0f} calls per confirmation"


def _executions_of_prepared(fragment: str) -> tuple[int, int]:
    """(prepared statements whose text has `fragment`, their executions) on this connection."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), coalesce(sum(generic_plans + custom_plans), 0) FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            [f"%{fragment}%"],
        )
        return cursor.fetchone()


# The worker's Python work per plain confirmation (a short-body order's, never paid), the calls
# of every function it runs, ours and the libraries', in this process: 8,466 before order edits,
# parcels and invoices (cc36aa1), 8,639 at the commit before invoices came (1a66aaa), 8,708 at
# 7194947, and 8,555 once the claim read was no longer parsed at every claim (2ea163a,
# infra/numbered_statements.py). A count, not a time: it does not move with the machine's load,
# and a change that adds a millisecond to the hot path adds some 2,500 calls. (The shop order's
# email renders more and is not counted here.)
PYTHON_CALLS_PER_CONFIRMATION = 8_700
PROFILED_CONFIRMATIONS = 30


# The claim's locked read, the claim's write and the accepted outcome: one per email each.
HOT_STATEMENTS = ["FOR NO KEY UPDATE OF o, n", "WITH claimed AS", "SELECT kind, created_at FROM sent"]


def test_the_hot_statements_are_prepared_once_per_connection_and_the_orms_are_not(mailsim):
    orders = [
        order_create(customer_email=f"p{n}@example.com", amount=Decimal("1.00"), currency="EUR")
        for n in range(3)
    ]
    envelopes = [OutboxEvent.objects.get(aggregate_id=str(order.id)).payload for order in orders]
    delivery = Delivery(worker="cost pid 1", retries=0, max_retries=8)
    event_dispatch(raw_envelope=envelopes[0], delivery=delivery)  # prepares them, if not yet
    before = {fragment: _executions_of_prepared(fragment) for fragment in HOT_STATEMENTS}
    for envelope in envelopes[1:]:
        assert event_dispatch(raw_envelope=envelope, delivery=delivery) == "sent"
    for fragment in HOT_STATEMENTS:
        statements, executions = _executions_of_prepared(fragment)
        assert statements == 1, f"{fragment!r} prepared {statements} times"
        assert executions - before[fragment][1] == 2, fragment
    # Every order's transaction: the order's and its event's INSERTs, prepared once as well.
    for table in ("orders_order", "messaging_outboxevent"):
        statements, executions = _executions_of_prepared(f'INSERT INTO "{table}"')
        assert (statements, executions >= len(orders)) == (1, True), table
    # The ORM's statements keep Django's client-side binding: nothing of this test's reads.
    assert _executions_of_prepared('FROM "messaging_outboxevent" WHERE') == (0, 0)


def test_prepared_statements_can_be_turned_off_for_a_pooler(mailsim, settings):
    settings.DATABASE_PREPARED_STATEMENTS = False
    order = order_create(customer_email="pooler@example.com", amount=Decimal("1.00"), currency="EUR")
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    before = _executions_of_prepared(HOT_STATEMENTS[0])
    delivery = Delivery(worker="cost pid 1", retries=0, max_retries=8)
    assert event_dispatch(raw_envelope=envelope, delivery=delivery) == "sent"
    assert _executions_of_prepared(HOT_STATEMENTS[0]) == before  # no execution of a prepared one
