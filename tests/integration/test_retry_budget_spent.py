"""A delivery whose retry budget is spent fails alone: the next delivery the same pool process
runs keeps its own retries. Before, the spent budget was handed to Celery's `Task.retry` as
`max_retries`, which Celery keeps on the task object; its autoretry wrapper leaves it there
when retry raises, so every later retry in that process was cut at that count and a fresh
email's first 503 sent it to the dead-letter queue. Real worker process, RabbitMQ, PostgreSQL
and the mail simulator."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import psycopg
import pytest

from messaging.dead_lettering import CLASS_HEADER, REASON_HEADER
from notifications.models import Notification
from orders.models import Order
from orders.services import order_create
from tests.broker import queue_peek, queue_ready_count
from tests.integration.test_batch_companions import _envelope_of_a_new_order, _publish, _task_message
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

DLQ = "orders.confirmations.dlq"


def _row_lock(database_url: str, order: Order) -> psycopg.Connection:
    """Another transaction holding the order's row lock: the claim waits, then fails."""
    connection = psycopg.connect(database_url)
    connection.execute(f"SELECT 1 FROM {Order._meta.db_table} WHERE id = %s FOR UPDATE", [order.id])
    return connection


def test_a_spent_budget_of_one_message_does_not_cut_the_retries_of_the_next(
    mailsim, start_worker, processes_database_url
):
    # given a message whose budget is long spent (a dead letter replayed: the replay keeps
    # x-retry-since and resets retries to 0), whose claim fails on a database error
    envelope = _envelope_of_a_new_order("replayed")
    replayed_order = Order.objects.get(id=envelope["order_id"])
    body, headers = _task_message([envelope])
    two_days_ago = (datetime.now(UTC) - timedelta(days=2)).isoformat()
    held = _row_lock(processes_database_url, replayed_order)
    try:
        _publish(body, {**headers, "retries": 0, "x-retry-since": two_days_ago})
        start_worker(
            concurrency=1,
            DATABASE_URL=processes_database_url + "?options=-c%20lock_timeout%3D300",
            DELIVERY_RETRY_BASE_DELAY_SECONDS="1",
        )
        wait_until(lambda: queue_ready_count(DLQ) == 1, timeout=30, message="the replayed one dead-lettered")
    finally:
        held.rollback()
        held.close()
    # when a fresh order's email meets one 503 in the same pool process
    mailsim.set_faults({"kind": "503", "retry_after": 1, "times": 1})
    fresh = order_create(customer_email="fresh@example.com", amount=Decimal("5.00"), currency="EUR")
    wait_until(
        lambda: (
            Notification.objects.filter(order=fresh, status="sent").exists() or queue_ready_count(DLQ) >= 2
        ),
        timeout=40,
        message="the fresh email sent, or dead-lettered",
    )
    # then it is retried and sent, as its own budget allows
    notification = Notification.objects.get(order=fresh)
    reasons = [(d["headers"].get(CLASS_HEADER), d["headers"].get(REASON_HEADER)) for d in queue_peek(DLQ)]
    assert notification.status == "sent", (notification.status, notification.last_error, reasons)
