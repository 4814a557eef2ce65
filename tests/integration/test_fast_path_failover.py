"""The on-commit publish when the broker node it talks to is lost: a reconnect to the next
node of the list within the same publish, no pause; and when every node is away, one try,
then a pause in which orders are left to the sweep without touching the network.

Two "nodes" of one real RabbitMQ: a TCP proxy in front of it (cut to lose the node: its
connections break and it refuses new ones) and the broker itself, or a listener that takes
connections and closes them at once (a node that is down behind something still
listening), which counts the connects it was asked for."""

import socket
import threading
from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from messaging.models import OutboxEvent
from messaging.relay import relay
from orders.services import order_create
from tests.integration.tcp_proxy import TcpProxy

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("clean_queues", "fast_path_unpaused"),
]


class ClosingListener:
    """Accepts each connection and closes it at once; counts them."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self.accepted += 1
            client.close()

    def close(self) -> None:
        self._listener.close()


def _node_url(broker_url: str, port: int) -> str:
    real = urlsplit(broker_url)
    return real._replace(netloc=f"{real.username}:{real.password}@127.0.0.1:{port}").geturl()


def _order_event() -> OutboxEvent:
    order = order_create(customer_email="a@example.com", amount=Decimal("10.00"), currency="EUR")
    return OutboxEvent.objects.get(aggregate_id=str(order.id))


@pytest.fixture
def proxied_node(settings):
    """The broker behind a proxy: the first node of the list, the one that will be lost."""
    real = urlsplit(settings.CELERY_BROKER_URL)
    proxy = TcpProxy(real.hostname, real.port or 5672)
    yield proxy, _node_url(settings.CELERY_BROKER_URL, proxy.port)
    proxy.close()


def test_a_lost_node_costs_the_on_commit_publish_a_reconnect_not_a_pause(settings, proxied_node):
    proxy, first_node = proxied_node
    settings.CELERY_BROKER_URL = f"{first_node};{settings.CELERY_BROKER_URL}"
    assert _order_event().published_at is not None  # connected through the first node
    # when the first node is lost under the held connection
    proxy.cut()
    # then the next order's publish goes to the second node in the same call
    lost_under = _order_event()
    assert lost_under.published_at is not None, lost_under.last_publish_error
    # and the fast path is not paused: the one after is published at once too
    assert relay._fast_path_paused_until == 0.0
    assert _order_event().published_at is not None


def test_when_every_node_is_away_one_order_tries_and_the_rest_are_left_to_the_sweep(settings, proxied_node):
    proxy, first_node = proxied_node
    down_node = ClosingListener()
    try:
        settings.CELERY_BROKER_URL = f"{first_node};{_node_url(settings.CELERY_BROKER_URL, down_node.port)}"
        assert _order_event().published_at is not None
        # when the first node is lost and the second is down too
        proxy.cut()
        tried = _order_event()
        # then that order's publish tried once more on a fresh connection, through the list
        assert tried.published_at is None
        assert tried.last_publish_error.startswith("broker unreachable"), tried.last_publish_error
        connects_asked = down_node.accepted
        assert connects_asked >= 1
        # and the next orders, in the pause, are left to the sweep without a connect
        left = [_order_event() for _ in range(10)]
        assert [event.published_at for event in left] == [None] * 10
        assert all("left to the sweep" in event.last_publish_error for event in left)
        assert down_node.accepted == connects_asked
    finally:
        down_node.close()
