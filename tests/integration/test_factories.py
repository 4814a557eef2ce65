"""The test factories make what the product makes: an order with its event and its pending
confirmation, the rows a crash before the publish leaves, a notification in a given state, an
attempt counted on its notification. If the product changes what an order's commit writes,
these fail before the tests built on the factories mislead."""

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.models import OutboxEvent
from notifications.models import Notification
from tests.factories import (
    DeliveryAttemptFactory,
    NotificationFactory,
    OrderFactory,
    UnpublishedOrderFactory,
)

pytestmark = pytest.mark.django_db


def _rows(order) -> tuple[list[tuple], list[tuple]]:
    events = OutboxEvent.objects.filter(aggregate_id=str(order.id))
    notifications = Notification.objects.filter(order=order)
    return (
        [(e.event_type, e.aggregate_type, e.schema_version, sorted(e.payload)) for e in events],
        [(n.kind, n.status, n.attempt_count) for n in notifications],
    )


def test_an_order_of_the_factory_has_its_event_and_its_pending_confirmation(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=False) as publishes:
        order = OrderFactory.create(customer_email="ada@example.com", amount="49.90")
    assert (order.customer_email, str(order.amount), order.currency) == ("ada@example.com", "49.90", "EUR")
    events, notifications = _rows(order)
    assert events == [
        ("order.created", "order", 1, ["event_id", "event_type", "occurred_at", "order_id", "schema_version"])
    ]
    assert notifications == [("order_confirmation", "pending", 0)]
    assert len(publishes) == 1  # the on-commit publish, as order_create registers it


def test_a_paid_order_of_the_factory_is_paid_as_a_shop_pays_it(django_capture_on_commit_callbacks):
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=False):
        order = OrderFactory.create(paid=True)
    assert (order.status, order.version) == ("paid", 2)
    assert order.paid_at is not None
    assert before <= order.paid_at <= timezone.now()
    events, _ = _rows(order)
    assert [event_type for event_type, *_ in events] == ["order.created", "order.paid"]


def test_an_unpublished_order_has_the_same_rows_its_event_unclaimed_and_no_publish(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=False) as publishes:
        placed = OrderFactory.create()
        unpublished = UnpublishedOrderFactory.create()
    assert _rows(unpublished) == _rows(placed)
    assert len(publishes) == 1  # the placed order's only
    event = OutboxEvent.objects.get(aggregate_id=str(unpublished.id))
    assert (event.published_at, event.next_attempt_at, event.claimed_by) == (None, None, "")


def test_a_notification_is_brought_to_the_state_asked_for(order):
    failed = NotificationFactory.create(order=order, failed=True)
    assert (failed.status, failed.error_class) == ("failed", "permanent")
    assert failed.last_error.startswith("The mail provider refused the email to ada@example.com")
    review = NotificationFactory.create(order=order, needs_review=True)
    assert (review.pk, review.status, review.error_class) == (failed.pk, "needs_review", "needs_review")
    leased = NotificationFactory.create(order=order, leased=True)
    assert (leased.status, leased.lease_owner) == ("sending", "other-host:4242")
    assert leased.lease_expires_at is not None
    assert leased.lease_expires_at > timezone.now()


def test_attempts_are_numbered_and_counted_and_one_without_an_outcome_never_finished(order):
    notification = Notification.objects.get(order=order)
    started = timezone.now() - timedelta(minutes=5)
    first = DeliveryAttemptFactory.create(notification=notification, started_at=started, outcome="transient")
    second = DeliveryAttemptFactory.create(notification=notification)
    notification.refresh_from_db()
    assert (first.number, first.finished_at) == (1, started)
    assert (second.number, second.finished_at, second.outcome) == (2, None, "")
    assert (notification.attempt_count, notification.first_attempt_at) == (2, started)
    event = OutboxEvent.objects.get(aggregate_id=str(order.id), event_type="order.created")
    assert first.event_id == second.event_id == event.id
