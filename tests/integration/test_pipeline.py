"""End to end with real processes: API → outbox → RabbitMQ → Celery worker → mail simulator."""

import pytest
import requests
from django.conf import settings
from kombu import Connection

from messaging.broker.channel import amqp_channel
from messaging.models import OutboxEvent, ProcessedEvent
from messaging.relay.messages import OutgoingMessage
from messaging.relay.publisher import process_publisher
from messaging.task_names import HANDLE_EVENT
from notifications.models import DeliveryAttempt, Notification
from tests.broker import queue_ready_count
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _sent_count() -> int:
    return Notification.objects.filter(status=Notification.Status.SENT).count()


def test_fifty_orders_through_the_api_give_fifty_sent_notifications_and_fifty_emails(
    live_server, api_token, mailsim, start_worker
):
    start_worker()
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    addresses = [f"customer{number}@example.com" for number in range(50)]
    # when
    for address in addresses:
        response = session.post(
            f"{live_server.url}/api/orders/",
            json={"customer_email": address, "amount": "19.99", "currency": "EUR"},
            timeout=10,
        )
        assert response.status_code == 201, response.text
        assert response.json()["notifications"][0]["status"] in ("pending", "sending", "sent")
    # then
    wait_until(lambda: _sent_count() == 50, timeout=60, message="50 notifications sent")
    messages = mailsim.messages()
    assert len(messages) == 50
    assert len({message["idempotency_key"] for message in messages}) == 50
    assert sorted(message["to"][0] for message in messages) == sorted(addresses)
    keys = set(Notification.objects.values_list("idempotency_key", flat=True))
    assert {message["idempotency_key"] for message in messages} == keys
    assert OutboxEvent.objects.filter(published_at__isnull=True).count() == 0
    assert ProcessedEvent.objects.count() == 50
    assert queue_ready_count("orders.confirmations") == 0
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_the_same_event_published_three_times_and_redelivered_gives_one_email(mailsim, start_worker):
    # given an order whose event reaches the queue three more times
    order = OrderFactory.create(customer_email="dup@example.com")
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    copy = OutgoingMessage(event.id, HANDLE_EVENT, (event.payload,), "orders.events", event.event_type)
    report = process_publisher().publish([copy, copy, copy])
    assert len(report.confirmed) == 3
    # and one copy is handed out and put back, so the broker redelivers it
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        message = channel.basic_get(queue="orders.confirmations", no_ack=False)
        assert message is not None
        channel.basic_reject(message.delivery_info["delivery_tag"], requeue=True)
        channel.close()
    assert queue_ready_count("orders.confirmations") == 4
    # when
    start_worker()
    # then
    wait_until(lambda: queue_ready_count("orders.confirmations") == 0, timeout=30, message="queue drained")
    wait_until(_sent_count, timeout=30, message="notification sent")
    wait_until(
        lambda: len([r for r in mailsim.requests_log() if r["status"] == 200]) >= 1,
        timeout=10,
        message="send",
    )
    assert [message["to"] for message in mailsim.messages()] == [["dup@example.com"]]
    assert ProcessedEvent.objects.filter(event_id=event.id).count() == 1
    notification = Notification.objects.get(order=order)
    assert notification.attempt_count == 1
    assert DeliveryAttempt.objects.filter(notification=notification).count() == 1
    assert queue_ready_count("orders.confirmations.dlq") == 0


def test_a_connection_dropped_after_the_provider_accepted_is_retried_with_the_same_key_and_sent_once(
    mailsim, start_worker
):
    # given a provider that stores the first email and then drops the connection
    mailsim.set_faults({"kind": "accept_then_drop", "times": 1})
    start_worker()
    # when
    order = OrderFactory.create(customer_email="drop@example.com")
    # then
    wait_until(_sent_count, timeout=40, message="notification sent after the retry")
    notification = Notification.objects.get(order=order)
    attempts = list(notification.attempts.order_by("number").values_list("outcome", flat=True))
    assert attempts == ["unknown", "accepted"]
    [message] = mailsim.messages()
    assert message["idempotency_key"] == notification.idempotency_key
    keys_sent = {request["idempotency_key"] for request in mailsim.requests_log()}
    assert keys_sent == {notification.idempotency_key}
    assert notification.provider_message_id == message["id"]


def test_a_provider_that_is_briefly_unavailable_is_retried_and_the_email_sent_once(mailsim, start_worker):
    mailsim.set_faults({"kind": "503", "times": 2, "retry_after": 1})
    start_worker(DELIVERY_RETRY_BASE_DELAY_SECONDS="1")
    # when
    order = OrderFactory.create(customer_email="later@example.com")
    # then
    wait_until(_sent_count, timeout=60, message="notification sent after two 503s")
    notification = Notification.objects.get(order=order)
    outcomes = list(notification.attempts.order_by("number").values_list("outcome", flat=True))
    assert outcomes == ["transient", "transient", "accepted"]
    assert len(mailsim.messages()) == 1
    assert notification.last_error == ""


def _terminate_other_database_connections() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_workers_recover_from_dropped_database_connections_and_keep_dead_lettering(mailsim, start_worker):
    # given a worker that has done work, so its processes hold database connections
    start_worker(concurrency=1)
    first = OrderFactory.create(customer_email="before@example.com")
    wait_until(
        lambda: Notification.objects.filter(order=first, status="sent").exists(), timeout=20, message="1st"
    )
    # when the database drops every connection (a restart or failover)
    assert _terminate_other_database_connections() >= 1
    # then a permanent failure still reaches the dead-letter queue (the worker's main process
    # stores the failure before it rejects the message) and the worker goes on sending
    mailsim.set_faults({"kind": "reject", "to_contains": "rejected@", "times": 1})
    OrderFactory.create(customer_email="rejected@example.com")
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=20, message="dead letter")
    second = OrderFactory.create(customer_email="after@example.com")
    wait_until(
        lambda: Notification.objects.filter(order=second, status="sent").exists(), timeout=20, message="2nd"
    )
    assert sorted(m["to"][0] for m in mailsim.messages()) == ["after@example.com", "before@example.com"]
