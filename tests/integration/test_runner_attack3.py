"""Third attack on the worker's message runner (messaging/worker/, notifications/delivery/): the
message check both ways in, and the outcome's lock wait. Real worker processes, RabbitMQ,
PostgreSQL and the mail simulator.

Each test states the promise: never lose an email, never send one twice, every message that
cannot be run goes to its dead-letter queue with a reason, one bad message harms no other."""

import threading
import time

import pytest

from tests.conftest import PYTHON
from tests.waiting import wait_until
from tools.drill.processes import ManagedProcess, process_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


@pytest.fixture
def start_relay(broker, mailsim_url, processes_database_url, tmp_path):
    """The relay as bin/relay starts it: a worker of the periodic jobs' queue only."""
    started: list[ManagedProcess] = []

    def start(**extra_env: str) -> ManagedProcess:
        relay = ManagedProcess(
            "relay",
            [
                *(PYTHON, "-m", "celery", "-A", "config", "worker"),
                *("-Q", "orders.maintenance", "-c", "1", "-n", "relay@%h"),
                *("--without-gossip", "--without-mingle", "-l", "INFO"),
            ],
            env=process_env(database_url=processes_database_url, broker_url=broker, mail_url=mailsim_url)
            | extra_env,
            log_path=tmp_path / "relay.log",
        ).start(ready=r" ready\.", timeout=60)
        started.append(relay)
        return relay

    yield start
    for relay in started:
        relay.stop()


def test_the_periodic_jobs_beat_sends_run_on_the_relay(start_relay):
    """Beat sends each periodic job with the task's own `apply_async`, and Celery puts the
    task's declared time limits into the message's `timelimit` header: [1900, 1800] for
    retention, [660, 600] for the daily reconciliation. The new check of every message the
    worker's consumer receives (`task_headers_problem`, `_time_limits_problem`) refuses any
    limit above the worker's TASK_TIME_LIMIT_SECONDS (75) as malformed; the relay's consumer
    then tries to dead-letter it, finds no work queue for orders.maintenance (it has no
    dead-letter queue) and rejects it, which drops it. Retention and reconciliation never
    run again: the outbox, inbox and provider events grow without bound, personal data is
    kept past its retention, and the nightly search for lost emails never happens."""
    from messaging.models import RetentionRun
    from messaging.tasks import relay_outbox_sweep_task, retention_task
    from operations.tasks import reconcile_task

    relay = start_relay()
    sweep = relay_outbox_sweep_task.apply_async()  # the control: limits below the worker's
    retention = retention_task.apply_async()  # exactly as beat sends it (Scheduler.apply_async)
    reconcile = reconcile_task.apply_async()
    wait_until(
        lambda: f"{sweep.id}] succeeded" in relay.log_text(), timeout=30, message="the outbox sweep ran"
    )
    wait_until(
        lambda: (
            all(f"{r.id}] succeeded" in relay.log_text() for r in (retention, reconcile))
            or "cannot tell the work queue" in relay.log_text()
        ),
        timeout=60,
        message="the periodic jobs ran, or were refused",
    )
    refused = [line[:300] for line in relay.log_text().splitlines() if "cannot tell the work queue" in line]
    assert not refused, f"the relay refused and dropped beat's periodic jobs: {refused}"
    assert RetentionRun.objects.exists(), "retention did not run"
    assert f"{reconcile.id}] succeeded" in relay.log_text(), "reconciliation did not run"


SMTP_CLOCKS = {
    "TASK_SOFT_TIME_LIMIT_SECONDS": "12",
    "TASK_TIME_LIMIT_SECONDS": "16",
    "NOTIFICATION_LEASE_SECONDS": "20",
    "MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS": "1",
    "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": "6",
}


def test_an_email_smtp_accepted_is_recorded_sent_though_its_row_was_held_a_few_seconds(smtpsim, start_worker):
    """SMTP cannot deduplicate, so its emails go in batches of one and an email whose outcome
    is not recorded can never be sent again automatically. The outcome's statement now waits
    at most DELIVERY_LOCK_WAIT_SECONDS (2 s) for a row someone holds (`accepted_record` with
    LOCK_WAIT_SET): a notification row held 6 s while the SMTP server was accepting the email
    (a person's open transaction, a stuck session, a duplicate delivery's claim that waits on
    another order) makes the write of "accepted" fail with LockNotAvailable after the email
    went out. A batch of one is not tried again (`_together_or_alone`), the attempt stays
    open, the retry waits out the lease and then finds an unknown outcome that SMTP cannot
    resend: the email, sent once, ends in needs_review (a person may send it a second time),
    and the server's message id is never stored. Before the lock wait the write waited the
    few seconds and recorded it sent, well inside the soft time limit."""
    from notifications.models import DeliveryAttempt, Notification
    from tests.integration.row_locks import row_held

    smtpsim.set_fault(kind="stall", seconds=3, times=1)  # stored at once, 250 after 3 s
    _smtp_worker(start_worker, smtpsim, concurrency=1)
    order = _order_claimed("held-while-smtp-accepts")
    release = threading.Event()
    holder = row_held("notifications_notification", Notification.objects.get(order=order).pk, release)
    time.sleep(6)  # the server accepts at 3 s; the row is free again at 6 s
    release.set()
    holder.join(timeout=10)
    wait_until(
        lambda: Notification.objects.get(order=order).status not in ("pending", "sending"),
        timeout=60,
        message="the email settled",
    )
    notification = Notification.objects.get(order=order)
    assert len(smtpsim.messages()) == 1
    attempts = list(
        DeliveryAttempt.objects.filter(notification=notification).values("outcome", "provider_message_id")
    )
    assert notification.status == "sent", (
        f"an email the SMTP server accepted ended {notification.status}: {notification.last_error} "
        f"(attempts {attempts})"
    )


def test_a_header_too_deep_to_decode_harms_no_email_in_flight_beside_it(smtpsim, start_worker):
    """A message whose header is a table nested deeper than py-amqp decodes makes the worker's
    consumer reconnect (`DeadLetteringConsumer.__init__` adds RecursionError to its connection
    errors), and RabbitMQ hands it back at every reconnect until its delivery limit (10),
    about ten reconnects in two seconds. Every message the consumer held goes back to the
    queue at each of them, so another email's message, in flight beside it, may reach the
    delivery limit too (that cannot be avoided while the connection must be dropped). What
    must hold: the running delivery is not terminated (Celery's
    worker_cancel_long_running_tasks_on_connection_loss would end its SMTP call, leaving an
    email sent and never recorded); it finishes and records its email `sent`, once; a dead
    letter of its message is one a replay finds done."""
    import sys

    from messaging.models import OutboxEvent, ProcessedEvent
    from notifications.models import Notification
    from tests.broker import queue_peek, queue_ready_count
    from tests.integration.test_batch_companions import QUEUE
    from tests.integration.test_runner_attack import deep_header_publish

    smtpsim.set_fault(kind="stall", seconds=4, times=1)  # stored at once, 250 after 4 s
    worker = _smtp_worker(start_worker, smtpsim, concurrency=2)
    victim = _order_claimed("victim-in-its-smtp-call")
    # any event's envelope: the message is never decoded
    envelope = OutboxEvent.objects.get(aggregate_id=str(victim.id)).payload
    deep_header_publish(envelope)
    wait_until(
        lambda: Notification.objects.get(order=victim).status == "sent",
        timeout=90,
        message="the victim's email recorded sent",
    )
    wait_until(lambda: queue_ready_count(f"{QUEUE}.dlq") >= 1, timeout=30, message="the deep one in the DLQ")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # to read the deep one's headers too
    try:
        others = [letter for letter in queue_peek(f"{QUEUE}.dlq") if "x-deep" not in letter["headers"]]
    finally:
        sys.setrecursionlimit(limit)
    log = worker.log_text()
    assert "Terminating it instead" not in log, "a running delivery was terminated at a reconnect"
    assert worker.process.poll() is None
    assert len(smtpsim.messages()) == 1
    for letter in others:  # the victim's, at the delivery limit: a replay finds its email done
        assert (letter["headers"].get("x-death") or [{}])[0].get("reason") == "delivery_limit"
        event_id = letter["body"][0][0]["event_id"]
        assert ProcessedEvent.objects.filter(event_id=event_id).exists()


def _smtp_worker(start_worker, smtpsim, *, concurrency: int):
    return start_worker(
        concurrency=concurrency,
        MAIL_PROVIDER="smtp",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtpsim.port),
        **SMTP_CLOCKS,
    )


def _order_claimed(label: str):
    """An order whose email a worker has claimed (its SMTP call under way)."""
    from notifications.models import Notification
    from tests.integration.test_runner_attack import _order

    order = _order(label)
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sending").exists(),
        timeout=30,
        interval=0.05,
        message=f"{label}'s email claimed",
    )
    return order
