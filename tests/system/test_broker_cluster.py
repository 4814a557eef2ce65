"""A three-node RabbitMQ cluster of our own (tools/drill/broker_cluster.py, the cluster drill's):
the work, dead-letter and periodic jobs' queues (quorum) get a replica on every node, and the
relay's confirming publisher, given the node list, fails over when the node it talks to (the leader of
orders.confirmations) is SIGKILLed. What the broker confirmed before the kill is still there;
what it did not confirm is published again (as the relay does: its rows stay unpublished),
and arrives."""

import subprocess
import time
import uuid

import pytest
from kombu import Connection

from messaging.broker.declare import topology_declare
from messaging.broker.topology import MAINTENANCE_QUEUE, dead_letter_queues, work_queue, work_queues
from messaging.relay.messages import OutgoingMessage
from messaging.relay.publisher import ConfirmingPublisher, PublishError
from messaging.task_names import HANDLE_EVENT
from orders.events import ORDER_CREATED
from tools.drill.broker_cluster import PrivateCluster

QUEUE = "orders.confirmations"


@pytest.fixture
def cluster():
    cluster = PrivateCluster(3)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


def _messages(count: int) -> list[OutgoingMessage]:
    return [
        OutgoingMessage(
            event_id=uuid.uuid4(),
            task_name=HANDLE_EVENT,
            args=({"event_type": ORDER_CREATED},),
            exchange="orders.events",
            routing_key=ORDER_CREATED,
        )
        for _ in range(count)
    ]


def _publish_until_confirmed(publisher: ConfirmingPublisher, messages: list[OutgoingMessage]) -> int:
    """Publish again what was not confirmed, as the relay's sweep does; the attempts made."""
    waiting, attempts, deadline = list(messages), 0, time.monotonic() + 60
    while waiting:
        assert time.monotonic() < deadline, f"{len(waiting)} never confirmed"
        attempts += 1
        try:
            confirmed = set(publisher.publish(waiting).confirmed)
        except PublishError:
            confirmed = set()
        waiting = [message for message in waiting if message.event_id not in confirmed]
        time.sleep(0.2 if waiting else 0)
    return attempts


def _queued_task_ids(url: str) -> list[str]:
    ids: list[str] = []
    with Connection(url, connect_timeout=5) as connection:
        # as declared; kombu's SimpleQueue takes a Queue as well as a name, its stubs only a name
        queue = connection.SimpleQueue(work_queue(QUEUE), no_ack=True)  # type: ignore[arg-type]
        while True:
            try:
                message = queue.get(timeout=2)
            except queue.Empty:
                return ids
            ids.append(message.headers["id"])


@pytest.mark.long_running
@pytest.mark.timeout(300)
def test_the_publisher_fails_over_when_the_leader_dies_and_nothing_confirmed_is_lost(cluster):
    names = sorted(node.name for node in cluster.nodes)
    topology_declare(broker_url=cluster.url)
    for queue in [*work_queues(), *dead_letter_queues(), MAINTENANCE_QUEUE]:
        assert sorted(cluster.queue_members(queue.name)) == names, queue.name
    leader = cluster.node(cluster.queue_leader(QUEUE))
    # The leader first in the list: the publisher talks to the node that will die.
    url = ";".join([leader.url, *(node.url for node in cluster.nodes if node is not leader)])
    publisher = ConfirmingPublisher(broker_url=url, confirm_timeout=5)
    before, after = _messages(20), _messages(20)
    assert _publish_until_confirmed(publisher, before) == 1

    leader.kill()
    with pytest.raises(subprocess.SubprocessError):
        leader.ctl("status", timeout=20)  # really dead
    # The held connection goes down with the node; the same publish fails over to a live one.
    assert _publish_until_confirmed(publisher, after) == 1
    new_leader = cluster.new_leader_after_kill(QUEUE, leader.name)
    assert new_leader != leader.name
    publisher.close()

    leader.start()  # back on its data directory, in the cluster again
    assert sorted(cluster.running_nodes()) == names
    queued = _queued_task_ids(url)
    assert sorted(set(queued)) == sorted(str(message.event_id) for message in before + after)
    # Confirmed before the kill: exactly once. After it, a copy whose confirm was lost with
    # the connection may be there twice; the consumers' inbox absorbs it.
    assert all(queued.count(str(message.event_id)) == 1 for message in before)
