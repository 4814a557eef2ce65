"""The email's rows keep only the indexes a lookup uses, and every lookup still finds one.

No update of a notification is a HOT one (its status is indexed), so each of its status
changes writes into every index whose predicate the row meets: that count is a cost per
email, pinned here as the statement counts are in test_costs.py."""

import pytest
from django.core.management import call_command
from django.db import connection

from notifications.models import DeliveryAttempt, Notification
from tests.factories import NotificationFactory

pytestmark = pytest.mark.django_db(transaction=True)

NOTIFICATION_INDEXES = {
    "notifications_notification_pkey",
    "notification_unique_idempotency_key",
    "notification_unique_order_kind_once",  # partial: the order's own emails
    "notification_unique_kind_subject",  # partial: a shipment's or a refund's
    "notifications_notification_order_id_4ee8e5c3",
    "notification_status_idx",
    "notification_message_id_idx",
    "notification_owner_idx",  # partial: emails with a reviewer
    "notification_template_idx",  # partial: emails rendered from an override
}
ATTEMPT_INDEXES = {"notifications_deliveryattempt_pkey", "attempt_unique_number"}


def _indexes(model) -> dict[str, bool]:
    """Index name → whether it is partial."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, i.indpred IS NOT NULL FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE i.indrelid = %s::regclass",
            [model._meta.db_table],
        )
        return dict(cursor.fetchall())


def _plan(queryset) -> str:
    """The plan PostgreSQL makes for the lookup once a scan of the whole table costs more
    than any index (what it chooses on a table of real size)."""
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            sql, params = queryset.query.sql_with_params()
            cursor.execute(f"EXPLAIN {sql}", params)
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_seqscan")


def test_an_email_writes_into_the_indexes_its_lookups_use_and_no_others():
    notification_indexes = _indexes(Notification)
    assert set(notification_indexes) == NOTIFICATION_INDEXES
    # so a status change of an order confirmation writes six index entries (nine before):
    # the five full indexes and the partial unique of the order's own emails
    full = {name for name, partial in notification_indexes.items() if not partial}
    assert full == {
        "notifications_notification_pkey",
        "notification_unique_idempotency_key",
        "notifications_notification_order_id_4ee8e5c3",
        "notification_status_idx",
        "notification_message_id_idx",
    }
    assert set(_indexes(DeliveryAttempt)) == ATTEMPT_INDEXES


def test_the_lookups_of_the_dropped_and_narrowed_indexes_still_find_an_index(django_user_model):
    reviewer = django_user_model.objects.create(username="erin")
    email = NotificationFactory.create()
    key = email.idempotency_key
    for queryset, index in [
        (Notification.objects.filter(owner=reviewer), "notification_owner_idx"),
        (Notification.objects.filter(email_template_id=7), "notification_template_idx"),
        (DeliveryAttempt.objects.filter(notification=email), "attempt_unique_number"),
        (Notification.objects.filter(idempotency_key=key), "notification_unique_idempotency_key"),
    ]:
        plan = _plan(queryset)
        assert index in plan, plan


def test_the_migration_goes_back_to_the_indexes_it_replaced_and_forward_again():
    call_command("migrate", "notifications", "0031", verbosity=0)
    try:
        before = _indexes(Notification)
        assert "notifications_notification_idempotency_key_0aab04ad_like" in before
        assert "notifications_notification_owner_id_7edeab4e" in before
        assert "notification_owner_idx" not in before
        assert "notifications_deliveryattempt_notification_id_2e6cf679" in _indexes(DeliveryAttempt)
    finally:
        call_command("migrate", "notifications", verbosity=0)
    assert set(_indexes(Notification)) == NOTIFICATION_INDEXES
