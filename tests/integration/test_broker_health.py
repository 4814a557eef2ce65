"""tests/broker_health.py: what a broker set-up or a worker start that timed out says of
RabbitMQ, read from the real node; and the set-up's bounded tries."""

import socket

import pytest
from django.conf import settings

from tests import broker_health
from tests.broker_health import broker_state, within_set_up_time


def test_the_state_gives_the_nodes_figures_and_a_real_connections_time(broker):
    state = broker_state(management_url=settings.RABBITMQ_MANAGEMENT_URL, broker_url=broker)
    for figure in ("sockets ", "file handles ", "memory alarm False", "an AMQP connection took"):
        assert figure in state, state


def test_a_broker_that_does_not_answer_is_said_so():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    state = broker_state(
        management_url=f"http://guest:guest@127.0.0.1:{port}/",
        broker_url=f"amqp://guest:guest@127.0.0.1:{port}//",
    )
    assert "management API did not answer" in state, state
    assert "an AMQP connection failed" in state, state


def test_a_step_failing_for_a_moment_is_tried_again_and_one_failing_for_good_says_why(monkeypatch):
    tries = []

    def twice_refused() -> None:
        tries.append(1)
        if len(tries) < 3:
            raise ConnectionRefusedError("not yet")

    monkeypatch.setattr(broker_health.time, "sleep", lambda seconds: None)
    within_set_up_time(twice_refused, what="the vhost", state=lambda: "the state")
    assert len(tries) == 3

    monkeypatch.setattr(broker_health, "SET_UP_SECONDS", 0.0)
    with pytest.raises(
        RuntimeError, match=r"the vhost: not done within 0 s \(TimeoutError\('hangs'\)\); the state"
    ):
        within_set_up_time(_hangs, what="the vhost", state=lambda: "the state")


def _hangs() -> None:
    raise TimeoutError("hangs")
