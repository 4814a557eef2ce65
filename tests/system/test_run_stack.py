"""The Procfile that `make run` starts, run for real: web (gunicorn), worker, relay, beat,
Flower and the mail simulator under honcho, on free ports, the test database and vhost."""

import time

import pytest
import requests

from messaging.models import OutboxEvent
from notifications.models import Notification
from tests.factories import UnpublishedOrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def test_twenty_orders_posted_to_the_running_stack_are_all_sent_within_ten_seconds(stack, api_token):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    started = time.monotonic()
    order_ids = []
    for number in range(20):
        response = session.post(
            f"{stack['web']}/api/orders/",
            json={"customer_email": f"stack{number}@example.com", "amount": "12.00", "currency": "EUR"},
            timeout=10,
        )
        assert response.status_code == 201, response.text
        order_ids.append(response.json()["id"])

    def all_sent() -> bool:
        statuses = [session.get(f"{stack['web']}/api/orders/{i}/", timeout=5).json() for i in order_ids]
        return all(order["notifications"][0]["status"] == "sent" for order in statuses)

    wait_until(all_sent, timeout=10 - (time.monotonic() - started), interval=0.25, message="20 sent in 10 s")
    messages = requests.get(f"{stack['mailsim']}/_sim/messages", timeout=5).json()["messages"]
    assert len(messages) == 20
    assert Notification.objects.filter(status="sent").count() == 20


def test_the_stack_serves_readiness_flower_with_auth_and_the_admin_static_files(stack):
    assert requests.get(f"{stack['web']}/readyz", timeout=10).json() == {"ready": True, "problems": []}
    assert requests.get(f"{stack['flower']}/api/workers", timeout=10).status_code == 401
    workers = wait_until(
        lambda: requests.get(
            f"{stack['flower']}/api/workers?refresh=1", auth=("ops", "test-password"), timeout=10
        ).json(),
        timeout=20,
        message="Flower lists workers",
    )
    assert any(name.startswith("worker@") for name in workers)
    assert requests.get(f"{stack['web']}/static/admin/css/base.css", timeout=5).status_code == 200


def test_the_beat_sweep_publishes_an_event_whose_fast_path_never_ran(stack):
    # given an order committed by a process that died before its on-commit publish
    order = UnpublishedOrderFactory(customer_email="orphan@example.com", amount="3.00")
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    # then beat's sweep publishes it and the worker sends it
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(),
        timeout=20,
        message="orphaned event sent by the sweep",
    )
    event.refresh_from_db()
    assert event.published_at is not None
