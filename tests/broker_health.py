"""What RabbitMQ itself says when a test's broker set-up or worker start times out: a
connection that hangs is told apart from a full file-handle table, an alarm or a busy node
in the failure's own message, where CI's log keeps it."""

import sys
import time
from collections.abc import Callable

import amqp
import requests
from kombu.exceptions import OperationalError

from infra.rabbitmq import broker_urls

# How long the run's own vhost and topology may take to be ready when the broker is slow
# (the five test processes set theirs up at once, beside workers other files start).
SET_UP_SECONDS = 120.0


def broker_state(*, management_url: str, broker_url: str) -> str:
    """One line of the node's figures and how long an AMQP connection to the URL took."""
    return f"RabbitMQ now: {_node_figures(management_url)}; {_connect_took(broker_url)}"


def _node_figures(management_url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(management_url)
    api = f"{parts.scheme}://{parts.hostname}:{parts.port or 15672}/api/nodes"
    try:
        response = requests.get(api, auth=(parts.username or "guest", parts.password or "guest"), timeout=10)
        node = response.json()[0]
    except (requests.RequestException, ValueError, IndexError, KeyError) as error:
        return f"management API did not answer ({error.__class__.__name__}: {error})"
    return (
        f"sockets {node.get('sockets_used')}/{node.get('sockets_total')}, "
        f"file handles {node.get('fd_used')}/{node.get('fd_total')}, "
        f"Erlang processes {node.get('proc_used')}, run queue {node.get('run_queue')}, "
        f"memory alarm {node.get('mem_alarm')}, disk alarm {node.get('disk_free_alarm')}"
    )


def _connect_took(broker_url: str) -> str:
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(broker_urls(broker_url)[0])
    started = time.monotonic()
    try:
        connection = amqp.Connection(
            f"{parts.hostname}:{parts.port or 5672}",
            userid=parts.username or "guest",
            password=parts.password or "guest",
            virtual_host=unquote(parts.path[1:]) or "/",
            connect_timeout=10,
        )
        connection.connect()
        connection.close()
    except (OSError, amqp.exceptions.AMQPError) as error:
        return f"an AMQP connection failed after {time.monotonic() - started:.1f} s ({error!r})"
    return f"an AMQP connection took {time.monotonic() - started:.2f} s"


def within_set_up_time(step: Callable[[], object], *, what: str, state: Callable[[], str]) -> None:
    """`step` until it succeeds, for at most SET_UP_SECONDS: a session fixture that fails once
    fails every later test of its process, so a broker busy for a moment must not end the
    run's broker tests. Each failed try is printed with the broker's state."""
    deadline = time.monotonic() + SET_UP_SECONDS
    delay = 2.0
    while True:
        try:
            step()
            return
        except (OSError, requests.RequestException, amqp.exceptions.AMQPError, OperationalError) as error:
            if time.monotonic() + delay > deadline:
                raise RuntimeError(
                    f"{what}: not done within {SET_UP_SECONDS:.0f} s ({error!r}); {state()}"
                ) from error
            print(f"{what}: {error!r}; trying again in {delay:.0f} s. {state()}", file=sys.stderr)
        time.sleep(delay)
        delay = min(delay * 2, 15.0)


def broker_state_now() -> str:
    """broker_state() of the run's own broker (the settings' URLs)."""
    from django.conf import settings

    return broker_state(
        management_url=settings.RABBITMQ_MANAGEMENT_URL, broker_url=settings.CELERY_BROKER_URL
    )
