"""No customer address on the wire or in a log: the whole stack of `make run` (web, worker,
relay, beat, Flower, mail simulator) handles orders with distinctive addresses, one sent,
one retried after a 503, one refused by the provider and dead-lettered. Every message
published in the run's vhost is captured by RabbitMQ's firehose (so messages consumed long
ago are seen too), and every file the run wrote is read: none holds an address.

The one exception is the mail simulator's store of accepted mail (MAILSIM_DATA_DIR): it is
the provider's side, where the address has to be. It is left out of the scan, and only it.
"""

import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
import requests
from django.conf import settings
from kombu import Connection

from config.settings.test import TEST_RABBITMQ_VHOST
from infra.rabbitmq import RabbitAdmin
from messaging.broker.channel import amqp_channel
from notifications.models import Notification
from tests.broker import queue_peek
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

CAPTURE_QUEUE = "test.firehose"
TRACE_EXCHANGE = "amq.rabbitmq.trace"  # RabbitMQ's firehose: a copy of every publish in the vhost


@pytest.fixture
def firehose(broker):
    """Copies of every message published in the test vhost from now on. Tracing is decided
    when a channel opens, so this must start before the processes under test."""
    admin = RabbitAdmin(settings.RABBITMQ_MANAGEMENT_URL)
    vhost_path = f"/vhosts/{quote(TEST_RABBITMQ_VHOST, safe='')}"
    admin._request("PUT", vhost_path, json={"tracing": True})
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = amqp_channel(connection)
        channel.queue_declare(CAPTURE_QUEUE, durable=False, auto_delete=False)
        channel.queue_bind(CAPTURE_QUEUE, TRACE_EXCHANGE, "publish.#")
        captured: list[dict] = []

        def drain() -> list[dict]:
            while (message := channel.basic_get(CAPTURE_QUEUE, no_ack=True)) is not None:
                captured.append({"body": message.body, "headers": message.properties["application_headers"]})
            return captured

        yield drain
        channel.queue_delete(CAPTURE_QUEUE)
    admin._request("PUT", vhost_path, json={"tracing": False})


def _address(kind: str) -> str:
    return f"{kind}.{uuid.uuid4().hex[:10]}@privacy-test.example"


def _forms(address: str) -> list[bytes]:
    """The address as it could appear: plain, URL-encoded, JSON-escaped."""
    return [address.encode(), quote(address).encode(), address.replace("@", "\\u0040").encode()]


def _files_of_the_run(run_dir: Path, mailsim_store: Path) -> dict[Path, bytes]:
    return {
        path: path.read_bytes()
        for path in run_dir.rglob("*")
        if path.is_file() and mailsim_store not in path.parents
    }


def test_no_address_travels_on_the_broker_or_lands_in_a_log(firehose, stack, api_token, tmp_path):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    sent, retried, refused = _address("sent"), _address("retried"), _address("refused")
    faults = [
        {"kind": "503", "times": 1, "to_contains": "retried."},
        {"kind": "reject", "to_contains": "refused."},
    ]
    requests.post(f"{stack['mailsim']}/_sim/faults", json={"rules": faults}, timeout=5).raise_for_status()
    # when three orders are placed over HTTP
    order_ids = {}
    for address in (sent, retried, refused):
        response = session.post(
            f"{stack['web']}/api/orders/",
            json={"customer_email": address, "amount": "9.50", "currency": "EUR"},
            timeout=10,
        )
        assert response.status_code == 201, response.text
        order_ids[address] = response.json()["id"]
    # and a client puts an address in a query string (gunicorn's access log prints it)
    session.get(f"{stack['web']}/api/orders/{order_ids[sent]}/", params={"customer": sent}, timeout=10)
    # then two are sent and one is refused, dead-lettered with its reason
    for address, status in ((sent, "sent"), (retried, "sent"), (refused, "failed")):
        wait_until(
            lambda a=address, s=status: Notification.objects.filter(order_id=order_ids[a], status=s).exists(),
            timeout=40,
            message=f"{address} {status}",
        )
    [dead_letter] = wait_until(
        lambda: queue_peek("orders.confirmations.dlq"), timeout=20, message="dead letter"
    )
    accepted = requests.get(f"{stack['mailsim']}/_sim/messages", timeout=5).json()["messages"]
    assert sorted(m["to"][0] for m in accepted) == sorted([sent, retried])  # the provider has them

    # the broker: every published message, bodies and headers (properties included)
    published = firehose()
    routed_to = {queue for m in published for queue in m["headers"].get("routed_queues", [])}
    assert {"orders.confirmations", "orders.confirmations.dlq", "orders.maintenance"} <= routed_to
    assert any(order_ids[refused].encode() in m["body"] for m in published)  # the capture sees our events
    wire = b"\n".join(m["body"] + repr(m["headers"]).encode() for m in published)
    wire += repr(dead_letter).encode()
    for address in (sent, retried, refused):
        for form in _forms(address):
            assert form not in wire, f"{form!r} travelled on the broker"
    assert "r***@privacy-test.example" in dead_letter["headers"]["x-dead-letter-reason"]

    # the logs and every other file of the run, but the provider's store of accepted mail
    stack["process"].stop(timeout=30)  # flushes every process's output
    files = _files_of_the_run(tmp_path, mailsim_store=tmp_path / "mailsim")
    logs = files[tmp_path / "stack.log"].decode(errors="replace")
    assert order_ids[refused] in logs
    assert "r***@privacy-test.example" in logs  # masked, not missing
    assert "s***%40privacy-test.example" in logs  # the access log line, masked
    for path, content in files.items():
        for address in (sent, retried, refused):
            for form in _forms(address):
                assert form not in content, f"{form!r} is in {path.relative_to(tmp_path)}"
