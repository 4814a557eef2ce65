"""The hourly retention job keeps a customer's personal data no longer than its periods: an
email's snapshot, an attempt's recipient and the provider's answer, a platform delivery's body
and, after a year, the order's personal data itself; in batches, recent rows untouched, an
order with an email still to be sent untouched; the run is recorded and the dashboard says
when it ran and what it removed."""

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from intake.models import PlatformDelivery
from messaging.models import RetentionRun
from messaging.retention import retention_run
from notifications.models import DeliveryAttempt, Notification
from orders.models import Order
from shops.models import Shop
from tests.factories import DeliveryAttemptFactory, NotificationFactory, OrderFactory, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _small_batches(settings):
    settings.PERSONAL_DATA_RETENTION_BATCH_SIZE = 2  # several batches for a few rows
    settings.PERSONAL_DATA_RETENTION_PACE = 1.0  # no pause between them (the bench measures the pace)


def _sent_long_ago(days: int, address: str) -> Notification:
    """A confirmation sent `days` ago, with its snapshot and its attempt."""
    attempt = DeliveryAttemptFactory.create(
        notification=NotificationFactory.create(order=OrderFactory.create(customer_email=address)),
        outcome="accepted",
    )
    then = timezone.now() - timedelta(days=days)
    Notification.objects.filter(pk=attempt.notification_id).update(status="sent", status_changed_at=then)
    DeliveryAttempt.objects.filter(pk=attempt.pk).update(started_at=then, finished_at=then)
    Order.objects.filter(pk=attempt.notification.order_id).update(created_at=then)
    return Notification.objects.get(pk=attempt.notification_id)


def test_what_outlived_its_period_is_cleared_and_what_did_not_stays(settings):
    old = [_sent_long_ago(100, f"old-{n}@example.com") for n in range(5)]
    recent = _sent_long_ago(10, "recent@example.com")
    assert all(email.email_html and email.email_content_hash for email in old)
    # when
    report = retention_run()
    # then: the old emails' snapshots and attempts' details are gone, in batches of 2
    for email in Notification.objects.filter(pk__in=[e.pk for e in old]):
        assert (email.email_subject, email.email_html, email.email_content_hash) == ("", "", "")
        assert email.status == "sent"  # the history stays
    assert not DeliveryAttempt.objects.filter(notification__in=old).exclude(recipient="").exists()
    assert report.steps_deleted["email_snapshots"] == 5
    assert report.steps_deleted["attempt_details"] == 5
    # the recent one keeps its snapshot (90 days) and its attempt's recipient (30 days)
    recent.refresh_from_db()
    assert recent.email_html
    assert DeliveryAttempt.objects.get(notification=recent).recipient == "recent@example.com"
    # the orders are younger than a year: their personal data stays
    assert Order.objects.filter(customer_email__startswith="old-").count() == 5


def test_after_a_year_an_order_s_personal_data_goes_unless_an_email_is_still_to_be_sent():
    finished = _sent_long_ago(400, "a-year-ago@example.com").order
    waiting = OrderFactory.create(customer_email="still-pending@example.com")  # its confirmation pending
    Order.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(days=400))
    # when
    report = retention_run()
    # then
    erased = Order.objects.get(pk=finished.pk)
    assert (erased.customer_email, erased.erased_at is not None) == ("", True)
    assert erased.amount == finished.amount
    assert Order.objects.get(pk=waiting.pk).customer_email == "still-pending@example.com"
    assert report.steps_deleted["order_personal_data"] == 1


def test_a_platform_delivery_s_body_goes_after_its_period():
    secret = hashlib.sha256(b"the retention test's shop").hexdigest()  # no literal secret in the file
    shop = Shop.objects.create(
        slug="s", name="S", platform="shopify", domain="s.myshopify.com", webhook_secret=secret
    )
    old, recent = (
        PlatformDelivery.objects.create(
            shop=shop,
            event_key=key,
            topic="orders/create",
            body='{"email": "ada@example.com"}',
            outcome="used",
        )
        for key in ("old", "recent")
    )
    PlatformDelivery.objects.filter(pk=old.pk).update(received_at=timezone.now() - timedelta(days=31))
    retention_run()
    assert PlatformDelivery.objects.get(pk=old.pk).body == ""
    assert PlatformDelivery.objects.get(pk=recent.pk).body


def test_each_run_is_recorded_and_the_dashboard_says_when_and_what(client):
    client.force_login(staff_user("olga", reviewer=False, otherwise_may_view="view_notification"))
    assert "never" in client.get("/admin/dashboard/").content.decode()
    _sent_long_ago(100, "old@example.com")
    # when
    retention_run()
    # then
    run = RetentionRun.objects.get()
    assert run.removed["email_snapshots_deleted"] == 1
    page = client.get("/admin/dashboard/").content.decode()
    assert "retention job&#x27;s last run" in page or "retention job's last run" in page
    assert "email snapshots: 1" in page
