"""trace_event, outbox_status and reconcile against a real worker and broker."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from messaging.models import OutboxEvent
from notifications.models import Notification, ReconcileReport
from tests.broker import queue_ready_count, queues_purge
from tests.factories import OrderFactory
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]
FAST_RETRIES = {"DELIVERY_MAX_RETRIES": "2", "DELIVERY_RETRY_BASE_DELAY_SECONDS": "1"}


def _command(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_trace_event_shows_every_step_of_a_retried_dead_lettered_and_replayed_event(mailsim, start_worker):
    # given: a 503 (retried), then a rejection (dead-lettered), then a replay that succeeds
    mailsim.set_faults({"kind": "503", "times": 1, "retry_after": 1}, {"kind": "reject", "times": 1})
    start_worker(**FAST_RETRIES)
    order = OrderFactory.create(customer_email="traced@example.com")
    wait_until(lambda: queue_ready_count("orders.confirmations.dlq") == 1, timeout=30, message="dead letter")
    _command("replay_dead_letters", "replay", "--yes", "--actor", "ops")
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(), timeout=20, message="sent"
    )
    event = OutboxEvent.objects.get(aggregate_id=str(order.id))
    # when
    trace = _command("trace_event", str(event.id))
    # then, in time order
    expected = [
        f"order {order.id} created",
        f"event {event.id} order.created written to the outbox",
        "published to RabbitMQ",
        "attempt 1 by test",
        "to resend: transient HTTP 503",
        "attempt 2 by test",
        "permanent HTTP 422",
        "dead-lettered from orders.confirmations (permanent)",
        "replay by ops: published again to orders.confirmations",
        "attempt 3 by test",
        "accepted HTTP 200",
        "notification order_confirmation is sent",
    ]
    positions = [trace.find(words) for words in expected]
    assert all(position >= 0 for position in positions), trace
    assert positions == sorted(positions), trace
    assert _command("trace_event", str(order.id)) == trace  # by order id: the same single event


def test_outbox_status_reports_backlog_statuses_and_dead_letter_depths_as_json(mailsim, start_worker):
    start_worker()
    order = OrderFactory.create(customer_email="status@example.com")
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(), timeout=20, message="sent"
    )
    status = json.loads(_command("outbox_status", "--json"))
    assert status["outbox_backlog"] == 0
    assert status["oldest_unpublished_age_seconds"] is None
    assert status["notifications_by_status"] == {"sent": 1}
    assert status["dead_letter_queues"] == {
        "notifications.provider_events.dlq": 0,
        "orders.analytics.dlq": 0,
        "orders.cancellations.dlq": 0,
        "orders.confirmations.dlq": 0,
        "orders.refunds.dlq": 0,
        "orders.shipments.dlq": 0,
    }


def test_reconcile_finds_an_email_whose_message_was_lost_and_repair_sends_it_once(mailsim, start_worker):
    # given an order whose event the outbox says is published, but the broker lost it
    # (a broker failure without replication, or a database restored to a later point)
    order = OrderFactory.create(customer_email="lost@example.com")
    queues_purge()
    long_ago = timezone.now() - timedelta(hours=1)
    Notification.objects.filter(order=order).update(status_changed_at=long_ago)
    OutboxEvent.objects.filter(aggregate_id=str(order.id)).update(published_at=long_ago)
    # when
    findings = json.loads(_command("reconcile", "--json"))["findings"]
    # then it is found
    assert [n["order"] for n in findings["stuck_notifications"]] == [str(order.id)]
    assert len(findings["published_but_unprocessed_events"]) == 1
    # and a repair sends it, once
    start_worker()
    _command("reconcile", "--repair")
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").exists(), timeout=20, message="sent"
    )
    assert len(mailsim.messages()) == 1
    report = ReconcileReport.objects.order_by("-started_at")[0]
    assert report.repaired["republished"] == [str(OutboxEvent.objects.get(aggregate_id=str(order.id)).id)]
    assert "1 event(s) republished" in report.summary


def _forget(order) -> None:
    """As if the database were restored to a point before this order existed."""
    from messaging.models import ProcessedEvent
    from notifications.models import DeliveryAttempt

    events = OutboxEvent.objects.filter(aggregate_id=str(order.id))
    ProcessedEvent.objects.filter(event_id__in=events.values("id")).delete()
    DeliveryAttempt.objects.filter(notification__order=order).delete()
    Notification.objects.filter(order=order).delete()
    events.delete()
    order.delete()


def test_after_a_restore_events_of_vanished_orders_go_to_the_dlq_and_lost_publishes_are_redone(mailsim):
    from messaging.dead_lettering import CLASS_HEADER, REASON_HEADER
    from tests.broker import queue_peek

    # given an order whose event was delivered before the crash, but the restore lost that
    kept = OrderFactory.create(customer_email="kept@example.com")
    queues_purge()
    OutboxEvent.objects.filter(aggregate_id=str(kept.id)).update(published_at=None, next_attempt_at=None)
    # and an order whose event waits in the broker, while the restored database lacks the order
    vanished = OrderFactory.create(customer_email="vanished@example.com")
    vanished_id = str(vanished.id)
    _forget(vanished)
    # when
    output = _command("reconcile", "--after-restore")
    # then
    assert "2 queued message(s) checked" not in output  # the kept order's message was purged
    assert "1 of orders not in the database moved to the dead-letter queue" in output
    assert "1 outbox event(s) published" in output
    [dead] = queue_peek("orders.confirmations.dlq")
    assert dead["headers"][CLASS_HEADER] == "restore"
    assert vanished_id in dead["headers"][REASON_HEADER]
    [requeued] = queue_peek("orders.confirmations")
    assert requeued["body"][0][0]["order_id"] == str(kept.id)


def test_after_a_restore_emails_in_flight_at_the_restore_point_are_sent_once_under_their_key(
    mailsim, start_worker
):
    # given two emails in flight at the restore point: their events were published and consumed
    # before the crash (nothing queued), and the restore lost what came of them: one pending,
    # one sending under a lease that has run out
    pending = OrderFactory.create(customer_email="pending@example.com")
    sending = OrderFactory.create(customer_email="sending@example.com")
    queues_purge()
    Notification.objects.filter(order=sending).update(
        status="sending",
        lease_owner="worker-before-the-crash",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    # and one whose event still waits in the queue: the check leaves it there, once
    queued = OrderFactory.create(customer_email="queued@example.com")
    # when
    output = _command("reconcile", "--after-restore")
    # then the two are published again now, not only once a repair finds them stuck
    assert "2 event(s) of emails in flight at the restore point published again" in output
    assert queue_ready_count("orders.confirmations") == 3
    start_worker()
    wait_until(
        lambda: Notification.objects.filter(status="sent").count() == 3, timeout=30, message="all three sent"
    )
    keys = sorted(message["idempotency_key"] for message in mailsim.messages())
    assert keys == sorted(Notification.objects.values_list("idempotency_key", flat=True))
    assert {n.order_id for n in Notification.objects.all()} == {pending.id, sending.id, queued.id}


def test_the_restore_check_refuses_while_workers_consume(mailsim, start_worker):
    start_worker()
    with pytest.raises(CommandError, match="stop them first"):
        _command("reconcile", "--after-restore")
