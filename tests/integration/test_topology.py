"""What the declared topology does with messages, on the real broker."""

import pytest
from django.conf import settings
from kombu import Connection

from messaging.broker.channel import amqp_channel
from messaging.broker.topology import DELIVERY_LIMIT
from messaging.relay.messages import OutgoingMessage
from messaging.relay.publisher import process_publisher
from messaging.task_names import HANDLE_EVENT
from tests.broker import queue_peek, queue_properties, queue_ready_count
from tests.waiting import wait_until

pytestmark = pytest.mark.usefixtures("clean_queues")


def _publish_one(event_id) -> None:
    message = OutgoingMessage(event_id, HANDLE_EVENT, ({},), "orders.events", "order.created")
    assert process_publisher().publish([message]).confirmed == [event_id]


def test_a_rejected_message_lands_in_the_dead_letter_queue_with_its_origin(broker):
    import uuid

    event_id = uuid.uuid4()
    _publish_one(event_id)
    # when a consumer rejects it without requeue (what Celery does for a failed task)
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        message = channel.basic_get(queue="orders.confirmations", no_ack=False)
        assert message is not None
        channel.basic_reject(message.delivery_info["delivery_tag"], requeue=False)
    # then
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=10, message="dead letter")
    [dead] = queue_peek("orders.confirmations.dlq")
    death = dead["headers"]["x-death"][0]
    assert (death["queue"], death["reason"]) == ("orders.confirmations", "rejected")
    assert dead["headers"]["id"] == str(event_id)


def test_a_message_redelivered_past_the_delivery_limit_is_dead_lettered_not_looped(broker):
    import uuid

    event_id = uuid.uuid4()
    _publish_one(event_id)
    # when a consumer dies with it again and again (requeue, as on a lost worker)
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        for _ in range(DELIVERY_LIMIT + 1):
            message = channel.basic_get(queue="orders.confirmations", no_ack=False)
            if message is None:
                break
            channel.basic_reject(message.delivery_info["delivery_tag"], requeue=True)
    # then
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=10, message="dead letter")
    assert queue_ready_count("orders.confirmations") == 0
    [dead] = queue_peek("orders.confirmations.dlq")
    assert dead["headers"]["x-death"][0]["reason"] == "delivery_limit"


def test_every_work_queue_is_a_durable_quorum_queue_with_a_dead_letter_exchange(broker):
    queue = queue_properties("orders.confirmations")
    assert queue["durable"] is True
    assert queue["arguments"]["x-queue-type"] == "quorum"
    assert queue["arguments"]["x-dead-letter-exchange"] == "orders.events.dlx"
    assert queue["arguments"]["x-dead-letter-strategy"] == "at-least-once"
    assert queue["arguments"]["x-delivery-limit"] == DELIVERY_LIMIT
