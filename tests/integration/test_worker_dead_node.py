"""A worker given a broker node list whose first node is down: its consumer takes the next
node and works from there, delayed retries included, without trying the dead node again.

Celery's own delayed-delivery step, left out of our consumer (messaging/worker/consumer.py),
set the delay queues up on every node of the list at each consumer start, sleeping 1, 3 and
5 s between its tries of a dead node before the consumer took any message: a worker whose
node died resumed 6 to 9 s after it had reconnected. `declare_topology` declares those queues (the
test run's broker fixture runs it), and this test's retry comes back through them."""

from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from notifications.models import Notification
from orders.services import order_create
from tests.waiting import wait_until
from tools.drill.processes import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _node_nobody_listens_on(broker: str) -> str:
    """The first node's URL at a port where nothing listens: a node that is down."""
    first = urlsplit(broker.split(";")[0])
    return first._replace(netloc=f"{first.username}:{first.password}@127.0.0.1:{free_port()}").geturl()


def test_a_worker_whose_first_node_is_down_sends_and_retries_without_trying_that_node(
    start_worker, broker, mailsim
):
    # given a worker whose node list starts with a node that is down
    worker = start_worker(CELERY_BROKER_URL=f"{_node_nobody_listens_on(broker)};{broker}")
    # and a provider that answers the first call with 503: the retry waits in the delay queues
    mailsim.set_faults({"kind": "503", "retry_after": 1, "times": 1})
    # when an order comes in
    order = order_create(customer_email="dead-node@example.com", amount=Decimal("5.00"), currency="EUR")
    # then its email is sent on the retry
    notification = Notification.objects.get(order=order)
    wait_until(
        lambda: Notification.objects.get(pk=notification.pk).status == Notification.Status.SENT,
        timeout=60,
        message="the email sent after its delayed retry",
    )
    assert len(mailsim.requests_log()) == 2  # the 503 and the retry
    assert len(mailsim.messages()) == 1
    # and the worker never set delayed delivery up itself, on the dead node or any other
    log = worker.log_text()
    assert "delayed delivery" not in log.lower(), log
