"""A worker that loses its broker connection while every pool process is busy and deliveries
wait for one sends the emails that come after it reconnects.

Celery clears the pool semaphore when the connection closes; a batcher of the worker's main
process once waited on that semaphore, and every later batchable message waited for good (the
two-host drill found it: host a, its link cut and back, sent no email again). Batches are now
formed inside the event task (messaging/worker/companions.py); this still holds it. A real worker
process, its broker connection through a proxy we cut, RabbitMQ, PostgreSQL and the simulator.
"""

import time
from decimal import Decimal
from urllib.parse import urlsplit

import pytest

from notifications.models import Notification
from orders.services import order_create
from tests.integration.short_lease import SHORT_LEASE
from tests.integration.tcp_proxy import TcpProxy
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _sent(orders: list) -> int:
    return Notification.objects.filter(order__in=orders, status="sent").count()


def test_a_worker_whose_connection_dropped_while_deliveries_waited_sends_what_comes_after(
    broker, mailsim, start_worker
):
    real = urlsplit(broker)
    proxy = TcpProxy(real.hostname, real.port or 5672)
    through_proxy = real._replace(netloc=f"{real.username}:{real.password}@127.0.0.1:{proxy.port}").geturl()
    try:
        # given one pool process, busy with a provider call that answers after 1.5 s (inside
        # the read timeout), and more deliveries prefetched that wait in the batcher for it
        mailsim.set_faults({"kind": "stall", "seconds": 1.5})
        # the busy call's process is ended at the connection loss: its lease is waited out
        worker = start_worker(concurrency=1, CELERY_BROKER_URL=through_proxy, **SHORT_LEASE)
        busy = order_create(customer_email="busy@example.com", amount=Decimal("5.00"), currency="EUR")
        wait_until(lambda: mailsim.messages(), timeout=20, message="the first call reached the provider")
        waiting = [
            order_create(customer_email=f"waiting-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
            for n in range(3)
        ]
        time.sleep(0.3)  # prefetched by the worker, waiting for its one pool process
        # when the connection drops and comes back
        offset = len(worker.log_text())
        proxy.cut()
        time.sleep(0.5)
        proxy.restore()
        mailsim.set_faults()  # a quick provider from now on
        worker.wait_for_log(r"Connected to amqp", timeout=30, start_at=offset)
        # then what was in flight or waiting is sent (redelivered), and so is what comes after
        after = [
            order_create(customer_email=f"after-{n}@example.com", amount=Decimal("5.00"), currency="EUR")
            for n in range(3)
        ]
        orders = [busy, *waiting, *after]
        wait_until(lambda: _sent(orders) == len(orders), timeout=60, message="every email sent")
    finally:
        proxy.close()
    keys = sorted(m["idempotency_key"] for m in mailsim.messages())
    expected = sorted(Notification.objects.filter(order__in=orders).values_list("idempotency_key", flat=True))
    assert keys == expected  # each once at the provider
