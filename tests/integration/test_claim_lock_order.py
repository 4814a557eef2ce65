"""The claim's single locked read takes the order's row lock before the notification's, the
order every other writer uses (order, then notification), so it can never deadlock with one.
Shown with three real connections: while the notification is held elsewhere, the waiting claim
already holds the order."""

import threading
import uuid

import psycopg
import pytest

from notifications.delivery.statements import _CLAIM_READ
from tests.factories import NotificationFactory
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_claim_waiting_for_the_notification_already_holds_the_order(processes_database_url):
    notification = NotificationFactory()
    holder = psycopg.connect(processes_database_url)
    claimer = psycopg.connect(processes_database_url)
    prober = psycopg.connect(processes_database_url)
    try:
        holder.execute(
            "SELECT id FROM notifications_notification WHERE id = %s FOR UPDATE", [notification.pk]
        )
        params = {
            "order_id": notification.order_id,
            "kind": notification.kind,
            "event_id": uuid.uuid4(),
            "inbox_key": "k",
            "provider": "resend",
        }
        claim = threading.Thread(target=lambda: claimer.execute(_CLAIM_READ, params))
        claim.start()
        wait_until(
            lambda: (
                prober.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [claimer.info.backend_pid]
                ).fetchone()[0]
                == "Lock"
            ),
            timeout=10,
            message="the claim waiting for the notification's lock",
        )
        with pytest.raises(psycopg.errors.LockNotAvailable):
            prober.execute(
                "SELECT id FROM orders_order WHERE id = %s FOR NO KEY UPDATE NOWAIT", [notification.order_id]
            )
        holder.rollback()
        claim.join(timeout=10)
        assert not claim.is_alive()
    finally:
        for connection in (holder, claimer, prober):
            connection.close()
