"""The claim's locked read (the one statement every delivery runs, alone or in a batch) takes
the order's row lock before the notification's, the order every other writer uses (order, then
notification), and goes through a batch's rows in order id order, so claims never deadlock with
each other or with an order's change. Shown with three real connections: while a notification
is held elsewhere, the waiting claim already holds what comes before it, and nothing after it."""

import threading
import uuid

import psycopg
import pytest

from notifications.delivery.claim_read import _CLAIM_READ
from tests.factories import NotificationFactory
from tests.waiting import wait_until
from tools.drill.sql import one_row

pytestmark = pytest.mark.django_db(transaction=True)


def _claim_params(notifications: list) -> dict:
    return {
        "positions": list(range(len(notifications))),
        "order_ids": [notification.order_id for notification in notifications],
        "kinds": [notification.kind for notification in notifications],
        "subject_ids": [notification.subject_id for notification in notifications],
        "event_ids": [uuid.uuid4() for _ in notifications],
        "inbox_keys": ["k" for _ in notifications],
        "provider": "resend",
        "fallback": "brevo",
        "lock_wait": "60s",  # the lock order is what is looked at here, not how long a claim waits
    }


def _order_is_locked(prober: psycopg.Connection, order_id: uuid.UUID) -> bool:
    try:
        prober.execute("SELECT id FROM orders_order WHERE id = %s FOR NO KEY UPDATE NOWAIT", [order_id])
    except psycopg.errors.LockNotAvailable:
        prober.rollback()
        return True
    prober.rollback()
    return False


def _while_the_claim_waits_for(held, claimed: list, database_url: str, check) -> None:
    """Hold `held` notification's row, run the claim's read of `claimed` on a connection of
    its own, and once it waits for that lock, `check(prober)` what it holds."""
    holder, claimer, prober = (psycopg.connect(database_url) for _ in range(3))
    try:
        holder.execute("SELECT id FROM notifications_notification WHERE id = %s FOR UPDATE", [held.pk])
        claim = threading.Thread(target=lambda: claimer.execute(_CLAIM_READ.named, _claim_params(claimed)))
        claim.start()
        wait_until(
            lambda: (
                one_row(
                    prober.execute(
                        "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s",
                        [claimer.info.backend_pid],
                    )
                )[0]
                == "Lock"
            ),
            timeout=10,
            message="the claim waiting for the notification's lock",
        )
        check(prober)
        holder.rollback()
        claim.join(timeout=10)
        assert not claim.is_alive()
    finally:
        for connection in (holder, claimer, prober):
            connection.close()


def test_a_claim_waiting_for_the_notification_already_holds_the_order(processes_database_url):
    notification = NotificationFactory.create()

    def check(prober):
        assert _order_is_locked(prober, notification.order_id)

    _while_the_claim_waits_for(notification, [notification], processes_database_url, check)


@pytest.mark.parametrize("held", ["first", "second"])
def test_a_batch_claims_its_orders_in_order_id_order(processes_database_url, held):
    # given two emails of one batch, listed in the reverse of their orders' id order
    first, second = sorted(
        (NotificationFactory.create(), NotificationFactory.create()), key=lambda n: n.order_id
    )
    waiting_for = first if held == "first" else second

    def check(prober):
        # then the claim holds the order whose notification it waits for, and every order
        # before it, and none after it
        assert _order_is_locked(prober, first.order_id)
        assert _order_is_locked(prober, second.order_id) == (held == "second")

    _while_the_claim_waits_for(waiting_for, [second, first], processes_database_url, check)
