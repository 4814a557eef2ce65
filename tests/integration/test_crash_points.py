"""Each crash point of infra/crash_points.py, deterministically: the process dies exactly
there (os._exit, as a SIGKILL would), a fresh one takes over, and in the end there is exactly
one accepted email and a final notification state. Real processes throughout."""

import sys
from collections import Counter
from decimal import Decimal

import pytest
import requests
from django.utils import timezone

from messaging.models import OutboxEvent
from messaging.relay.relay import relay_outbox_sweep
from notifications.models import Notification
from orders.models import Order
from orders.services import order_create
from tests.broker import queue_peek, queue_ready_count
from tests.factories import UnpublishedOrderFactory
from tests.integration.short_lease import SHORT_LEASE
from tests.waiting import wait_until
from tools.drill.processes import ManagedProcess, free_port

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("clean_queues"),
    pytest.mark.long_running,
]
SHORT_CLAIMS = {"OUTBOX_CLAIM_LEASE_SECONDS": "8", "OUTBOX_CONFIRM_TIMEOUT_SECONDS": "2"}


def _relay_dies_after_the_confirm(env: dict, tmp_path) -> None:
    relay = ManagedProcess(
        "relay",
        [sys.executable, "manage.py", "relay_outbox", "--once"],
        env=env,
        log_path=tmp_path / "relay.log",
    )
    relay.start(ready="crash point relay.after_confirm reached", timeout=30)
    assert relay.process.wait(timeout=10) == 137


def _sent_once(mailsim, order_id) -> Notification:
    notification = wait_until(
        lambda: Notification.objects.filter(order_id=order_id, status="sent").first(),
        timeout=40,
        message="sent",
    )
    address = Order.objects.get(id=order_id).customer_email
    [message] = [message for message in mailsim.messages() if message["to"] == [address]]
    assert message["idempotency_key"] == notification.idempotency_key
    return notification


def test_the_api_dying_after_the_commit_before_its_publish(
    mailsim, service_env, api_token, start_worker, tmp_path, settings
):
    port = free_port()
    env = service_env(FAULT_CRASH_POINT="api.after_commit", **SHORT_CLAIMS)
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "config.wsgi:application",
        "-b",
        f"127.0.0.1:{port}",
        "-w",
        "1",
    ]
    web = ManagedProcess("web", command, env=env, log_path=tmp_path / "web.log").start(ready="Booting worker")
    start_worker()
    try:
        # when: the order commits and is answered, then the web worker dies before publishing
        # (a request's events go out after its answer: messaging/relay/after_answer.py)
        answer = requests.post(
            f"http://127.0.0.1:{port}/api/orders/",
            json={"customer_email": "api-crash@example.com", "amount": "5.00", "currency": "EUR"},
            headers={"Authorization": f"Bearer {api_token}"},
            timeout=20,
        )
        assert answer.status_code == 201, answer.text
        web.wait_for_log("crash point api.after_commit reached", timeout=5)
    finally:
        web.stop()
    [order] = Order.objects.filter(customer_email="api-crash@example.com")
    [event] = OutboxEvent.objects.filter(aggregate_id=str(order.id))
    assert event.published_at is None
    # then the sweep takes over once the dead process's claim has run out
    wait_until(lambda: _swept_and_published(event), timeout=30, message="the sweep publishes it")
    _sent_once(mailsim, order.id)


def _swept_and_published(event: OutboxEvent) -> bool:
    relay_outbox_sweep()
    event.refresh_from_db()
    return event.published_at is not None


def test_the_relay_dying_after_the_confirm_before_it_marks(
    mailsim, service_env, start_worker, tmp_path, django_capture_on_commit_callbacks
):
    # given an order whose event waits in the outbox
    order = order_create(customer_email="relay-crash@example.com", amount=Decimal("5.00"), currency="EUR")
    OutboxEvent.objects.update(published_at=None, next_attempt_at=None)
    from tests.broker import queues_purge

    queues_purge()
    # when a relay publishes it, gets the confirm, and dies before writing published_at
    env = service_env(FAULT_CRASH_POINT="relay.after_confirm", **SHORT_CLAIMS)
    _relay_dies_after_the_confirm(env, tmp_path)
    assert OutboxEvent.objects.get().published_at is None
    assert queue_ready_count("orders.confirmations") == 1  # the broker has it
    # then a fresh relay publishes it again once the claim runs out, and one email goes out
    env.pop("FAULT_CRASH_POINT")
    fresh = ManagedProcess(
        "relay2", [sys.executable, "manage.py", "relay_outbox"], env=env, log_path=tmp_path / "relay2.log"
    )
    fresh.start(ready="published 1", timeout=40)
    fresh.stop()
    assert queue_ready_count("orders.confirmations") == 2
    start_worker()
    _sent_once(mailsim, order.id)
    wait_until(
        lambda: queue_ready_count("orders.confirmations") == 0, timeout=20, message="both copies handled"
    )
    assert len(mailsim.messages()) == 1


def test_the_relay_dying_with_a_batch_confirmed_and_the_next_one_claimed(service_env, tmp_path):
    # given five events waiting, relayed two at a time
    UnpublishedOrderFactory.create_batch(5)
    events = list(OutboxEvent.objects.order_by("created_at"))
    # when a relay has the first batch confirmed and the second claimed, and dies before it marks
    env = service_env(FAULT_CRASH_POINT="relay.after_confirm", OUTBOX_RELAY_BATCH_SIZE="2", **SHORT_CLAIMS)
    _relay_dies_after_the_confirm(env, tmp_path)
    # then nothing is marked, the broker has the first batch, and both batches keep their lease
    assert not OutboxEvent.objects.filter(published_at__isnull=False).exists()
    assert _copies() == Counter(str(event.id) for event in events[:2])
    leased = OutboxEvent.objects.filter(next_attempt_at__gt=timezone.now())
    assert set(leased.values_list("id", flat=True)) == {event.id for event in events[:4]}
    # a sweep meanwhile takes only the row nobody claimed
    assert relay_outbox_sweep().published == 1
    # and once the leases run out, the four come back and are published and marked
    wait_until(_swept_until_none_is_left, timeout=30, message="every event published")
    # the first two twice (the broker had confirmed them before the crash), the others once
    assert _copies() == Counter({str(event.id): 2 if event in events[:2] else 1 for event in events})


def _swept_until_none_is_left() -> bool:
    relay_outbox_sweep()
    return not OutboxEvent.objects.filter(published_at__isnull=True).exists()


def _copies() -> Counter[str]:
    return Counter(copy["headers"]["id"] for copy in queue_peek("orders.confirmations"))


@pytest.mark.parametrize("point", ["worker.after_provider_accept", "worker.after_commit"])
def test_a_worker_dying_after_the_provider_accepted_or_after_the_commit(point, mailsim, start_worker):
    doomed = start_worker(FAULT_CRASH_POINT=point, **SHORT_LEASE)  # its lease is waited out
    order = order_create(customer_email=f"{point}@example.com", amount=Decimal("5.00"), currency="EUR")
    doomed.wait_for_log(f"crash point {point} reached", timeout=20)
    doomed.process.wait(timeout=10)  # its main process was killed too: the message is unacked
    expected = "sending" if point == "worker.after_provider_accept" else "sent"
    assert Notification.objects.get(order=order).status == expected
    # a fresh worker takes the redelivered message over, once the dead worker's lease ran out
    start_worker(**SHORT_LEASE)
    notification = _sent_once(mailsim, order.id)
    outcomes = list(notification.attempts.order_by("number").values_list("outcome", flat=True))
    assert outcomes == (["unknown", "accepted"] if expected == "sending" else ["accepted"])
    wait_until(lambda: queue_ready_count("orders.confirmations") == 0, timeout=20, message="queue empty")
    assert queue_ready_count("orders.confirmations.dlq") == 0
