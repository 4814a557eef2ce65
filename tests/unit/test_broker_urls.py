"""A broker URL may list a cluster's nodes, separated by `;` (kombu's and Celery's failover
syntax): every helper that reads or rewrites the URL takes each node, and kombu gets the list
as its failover alternates in the same order."""

import pytest
from kombu import Connection

from infra.rabbitmq import broker_url_normalized, broker_url_with_vhost, broker_urls, user_of, vhost_of

CLUSTER = "amqp://orders:secret@rabbit-a:5672/orders;amqp://orders:secret@rabbit-b:5672/orders; amqp://orders:secret@rabbit-c:5673/orders"


def test_a_node_list_is_split_in_order_and_a_single_url_is_a_list_of_one():
    assert broker_urls(CLUSTER) == [
        "amqp://orders:secret@rabbit-a:5672/orders",
        "amqp://orders:secret@rabbit-b:5672/orders",
        "amqp://orders:secret@rabbit-c:5673/orders",
    ]
    assert broker_urls("amqp://guest:guest@127.0.0.1:5672//") == ["amqp://guest:guest@127.0.0.1:5672//"]
    assert broker_urls("amqp://a:1/x;") == ["amqp://a:1/x"]  # a trailing separator adds no node


def test_an_empty_broker_url_is_refused_with_its_value():
    with pytest.raises(ValueError, match="no broker URL in ' ; '"):
        broker_urls(" ; ")


def test_vhost_and_user_come_from_the_list_not_from_its_joined_text():
    assert vhost_of(CLUSTER) == "orders"
    assert user_of(CLUSTER) == "orders"
    assert vhost_of("amqp://guest:guest@127.0.0.1:5672//;amqp://guest:guest@127.0.0.1:5673//") == "/"


def test_the_test_vhost_is_put_on_every_node():
    rewritten = broker_url_with_vhost(CLUSTER, "test_gw0/x")
    assert broker_urls(rewritten) == [
        "amqp://orders:secret@rabbit-a:5672/test_gw0%2Fx",
        "amqp://orders:secret@rabbit-b:5672/test_gw0%2Fx",
        "amqp://orders:secret@rabbit-c:5673/test_gw0%2Fx",
    ]
    assert vhost_of(rewritten) == "test_gw0/x"
    single = broker_url_with_vhost("amqp://guest:guest@127.0.0.1:5672/orders", "t")
    assert single == "amqp://guest:guest@127.0.0.1:5672/t"


def test_kombu_fails_over_along_the_same_list_in_the_same_order():
    # kombu itself takes " amqp://…" (a blank after the `;`) for a host of None: the settings
    # read CELERY_BROKER_URL through broker_url_normalized
    assert Connection(CLUSTER).alt[2] == " amqp://orders:secret@rabbit-c:5673/orders"
    connection = Connection(broker_url_normalized(CLUSTER))
    assert connection.alt == broker_urls(CLUSTER)
    assert (connection.hostname, connection.port) == ("rabbit-a", 5672)
    connection.maybe_switch_next()
    assert (connection.hostname, connection.port, connection.virtual_host) == ("rabbit-b", 5672, "orders")
    connection.maybe_switch_next()
    assert (connection.hostname, connection.port) == ("rabbit-c", 5673)
