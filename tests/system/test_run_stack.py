"""The Procfile that `make run` starts, run for real: web (gunicorn), worker, relay, beat,
Flower and the mail simulator under honcho, on free ports, the test database and vhost; one
stack for the whole module."""

import time

import pytest
import requests

from apiauth.services import api_token_create
from messaging.models import OutboxEvent
from notifications.models import Notification
from tests.conftest import MailSim
from tests.factories import UnpublishedOrderFactory
from tests.waiting import wait_until

pytestmark = pytest.mark.usefixtures("clean_queues")


@pytest.fixture
def stack(module_stack):
    """The module's one stack (a start costs more than all these tests' own work), its
    simulator emptied of the previous test's emails and faults, the queues emptied before each
    test (`clean_queues`). The database is shared by the module's tests (`module_stack`)."""
    MailSim(module_stack["mailsim"]).reset()
    return module_stack


@pytest.fixture(scope="module")
def api_token(module_stack) -> str:
    """A token the stack's web can see: written outside any test transaction, as the stack's
    database is (`module_stack`)."""
    _, raw = api_token_create(name="stack tests")
    return raw


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
    assert Notification.objects.filter(order_id__in=order_ids, status="sent").count() == 20


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


def test_flower_turns_the_workers_task_events_on_and_shows_the_emails_tasks(stack, api_token):
    # Workers start without task events (WORKER_TASK_EVENTS=false): Flower enables them in
    # every worker it sees, every 5 s, and then lists what they handle.
    flower_auth, timeout = ("ops", "test-password"), 10
    wait_until(
        lambda: requests.get(
            f"{stack['flower']}/api/workers?refresh=1", auth=flower_auth, timeout=timeout
        ).json(),
        timeout=20,
        message="Flower lists workers",
    )
    time.sleep(6)  # one round of Flower's enable_events has reached the worker
    response = requests.post(
        f"{stack['web']}/api/orders/",
        json={"customer_email": "watched@example.com", "amount": "5.00", "currency": "EUR"},
        headers={"Authorization": f"Bearer {api_token}"},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    event_id = str(OutboxEvent.objects.get(aggregate_id=response.json()["id"]).id)

    def task_finished() -> dict | None:
        task = (
            requests.get(f"{stack['flower']}/api/tasks", auth=flower_auth, timeout=timeout)
            .json()
            .get(event_id)
        )
        return task if task and task["state"] in ("SUCCESS", "FAILURE", "RETRY") else None

    task = wait_until(task_finished, timeout=20, interval=0.5, message="Flower shows the email's task end")
    assert task["state"] == "SUCCESS"


def test_the_beat_sweep_publishes_an_event_whose_fast_path_never_ran(stack):
    # given an order committed by a process that died before its on-commit publish
    order = UnpublishedOrderFactory.create(customer_email="orphan@example.com", amount="3.00")
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    # then beat's sweep publishes it and the worker sends it
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(),
        timeout=20,
        message="orphaned event sent by the sweep",
    )
    event.refresh_from_db()
    assert event.published_at is not None


def _place(session: requests.Session, web: str, email: str, **fields: str) -> str:
    response = session.post(
        f"{web}/api/orders/",
        json={"customer_email": email, "amount": "49.90", "currency": "EUR", **fields},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _confirmation(session: requests.Session, web: str, order_id: str) -> dict:
    return session.get(f"{web}/api/orders/{order_id}/", timeout=5).json()["notifications"][0]


def test_an_order_placed_by_hand_shows_delivered_within_ten_seconds(stack, api_token):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    started = time.monotonic()
    order_id = _place(session, stack["web"], "hand@example.com")
    # the simulator posts its signed email.sent and email.delivered to our webhook; a worker applies them
    wait_until(
        lambda: _confirmation(session, stack["web"], order_id)["delivery_status"] == "delivered",
        timeout=10 - (time.monotonic() - started),
        interval=0.25,
        message="delivered in 10 s",
    )
    assert _confirmation(session, stack["web"], order_id)["status"] == "sent"


def test_a_bounced_address_shows_bounced_and_the_next_order_to_it_is_skipped(stack, api_token):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    rules = {"rules": [{"kind": "bounce", "to_contains": "bounces@"}]}
    assert requests.post(f"{stack['mailsim']}/_sim/faults", json=rules, timeout=5).status_code == 200
    first = _place(session, stack["web"], "bounces@example.com")
    wait_until(
        lambda: _confirmation(session, stack["web"], first)["delivery_status"] == "bounced",
        timeout=15,
        interval=0.25,
        message="the bounce applied",
    )
    # when
    second = _place(session, stack["web"], "bounces@example.com")
    # then
    skipped = wait_until(
        lambda: (n := _confirmation(session, stack["web"], second))["status"] == "skipped" and n,
        timeout=15,
        interval=0.25,
        message="the second order's email skipped",
    )
    # the client reads why in plain words; the provider's bounce text stays in the admin
    assert "do-not-send list" in skipped["reason"]
    assert "bounced" in skipped["reason"]
    messages = requests.get(f"{stack['mailsim']}/_sim/messages", timeout=5).json()["messages"]
    assert sum(message["to"] == ["bounces@example.com"] for message in messages) == 1


def test_an_order_in_russian_reaches_the_provider_in_russian_with_text_and_html(stack, api_token):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {api_token}"
    russian = _place(session, stack["web"], "ivan@example.com", locale="ru")
    default = _place(session, stack["web"], "jane@example.com")
    for order_id in (russian, default):
        wait_until(
            lambda order_id=order_id: _confirmation(session, stack["web"], order_id)["status"] == "sent",
            timeout=15,
            interval=0.25,
            message="both confirmations sent",
        )
    messages = requests.get(f"{stack['mailsim']}/_sim/messages", timeout=5).json()["messages"]
    by_address = {message["to"][0]: message for message in messages}
    ivan, jane = by_address["ivan@example.com"], by_address["jane@example.com"]
    assert ivan["subject"].startswith("Ваш заказ ")
    assert ivan["subject"].endswith(" подтверждён")
    assert "49,90\xa0€" in ivan["text"]
    assert '<html lang="ru">' in ivan["html"]
    assert jane["subject"].startswith("Your order ")
    assert "€49.90" in jane["text"]
    assert '<html lang="en">' in jane["html"]
