"""During a rolling deploy the previous release's processes keep writing while the new schema
is in place: their INSERTs name only the columns they know. The columns this release added
have database defaults, so those orders, notifications and attempts are stored, not refused."""

import uuid

import pytest
from django.db import connection

from apiauth.models import ApiToken
from notifications.models import DeliveryAttempt, Notification
from orders.models import Order

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
