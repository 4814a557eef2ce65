"""During a rolling deploy the previous release's processes keep writing while the new schema
is in place: their INSERTs name only the columns they know. The columns this release added
have database defaults, so those orders, notifications and attempts are stored, not refused;
an order such a process paid is paid without `paid_at`, and is still known as paid."""

import uuid

import pytest
from django.db import connection

from apiauth.models import ApiToken
from notifications.models import DeliveryAttempt, Notification
from orders.models import Order, Refund
from orders.refunds import RefundRequest, order_cancel_with_refund, refund_create
from tests.factories import OrderFactory

pytestmark = pytest.mark.django_db


def test_an_order_and_its_notification_written_by_the_previous_release_are_accepted():
    order_id = uuid.uuid4()
    with connection.cursor() as cursor:
        # the columns of orders_order and notifications_notification before email content
        cursor.execute(
            "INSERT INTO orders_order (id, customer_email, amount, currency, status, version, "
            "idempotency_key, request_fingerprint, created_at, updated_at) "
            "VALUES (%s, 'old@example.com', 5, 'EUR', 'created', 1, NULL, '', now(), now())",
            [order_id],
        )
        cursor.execute(
            "INSERT INTO notifications_notification (order_id, kind, status, idempotency_key, "
            "provider_message_id, attempt_count, lease_owner, error_class, last_error, "
            "last_error_detail, reviewer_comment, created_at, status_changed_at, provider, "
            "delivery_status, delivery_detail) "
            "VALUES (%s, 'order_confirmation', 'pending', %s, '', 0, '', '', '', '', '', "
            "now(), now(), '', '', '')",
            [order_id, f"order_confirmation:{order_id}"],
        )
    order = Order.objects.get(pk=order_id)
    assert order.locale == "en"
    notification = Notification.objects.get(order=order)
    assert (notification.email_subject, notification.email_content_hash) == ("", "")


def test_an_attempt_written_by_a_worker_of_the_previous_release_is_accepted(order):
    notification = Notification.objects.get(order=order)
    with connection.cursor() as cursor:
        # the columns of notifications_deliveryattempt before attempts kept their address
        cursor.execute(
            "INSERT INTO notifications_deliveryattempt (notification_id, event_id, number, worker, "
            "started_at, outcome, error, provider_message_id) "
            "VALUES (%s, %s, 1, 'old-release:1', now(), '', '', '')",
            [notification.pk, uuid.uuid4()],
        )
    assert DeliveryAttempt.objects.get(notification=notification).recipient == ""  # the order's address


def test_a_token_made_by_the_previous_release_speaks_for_a_client_of_its_own():
    with connection.cursor() as cursor:
        # the columns of apiauth_apitoken before tokens spoke for a client
        cursor.execute(
            "INSERT INTO apiauth_apitoken (name, key_hash, prefix, created_at) "
            "VALUES ('old-a', repeat('a', 64), 'ont_a', now()), ('old-b', repeat('b', 64), 'ont_b', now())"
        )
    clients = set(ApiToken.objects.filter(name__startswith="old-").values_list("client", flat=True))
    assert len(clients) == 2


def test_an_order_paid_by_the_previous_release_takes_its_refund_alone_and_with_its_cancellation(order):
    # given: two orders paid by a process of the previous release (its UPDATE knows no paid_at)
    other = OrderFactory.create(customer_email="bob@example.com", amount="49.90", currency="EUR")
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE orders_order SET status = 'paid', version = 2, updated_at = now() WHERE id IN (%s, %s)",
            [order.id, other.id],
        )
    # when: this release refunds one, and cancels the other with its refund
    refund_create(order_id=order.id, api_token=None, request=RefundRequest("R1", amount_minor=1250))
    order_cancel_with_refund(order_id=other.id, api_token=None, refund=RefundRequest("C1", amount_minor=4990))
    # then: both were taken, and the cancelled one keeps when it was paid (its last change)
    assert Refund.objects.filter(order__in=[order, other]).count() == 2
    other.refresh_from_db()
    assert other.status == "cancelled"
    assert other.paid_at is not None
