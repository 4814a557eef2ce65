"""What the tests of the keyed hash and the address rule do to an address: send its next
order's email through the handler, and report a hard bounce of an email as a provider would."""

import uuid
from datetime import UTC, datetime

from messaging.dispatch import Delivery, event_dispatch
from messaging.models import OutboxEvent
from notifications.models import Notification
from notifications.tracking.intake import provider_event_store
from notifications.tracking.normalised import TrackingEvent
from tests.factories import OrderFactory
from tests.integration.test_provider_webhooks import _apply_all

DELIVERY = Delivery(worker="test pid 1", retries=0, max_retries=8)


def next_order_to(address: str) -> Notification:
    """A new order for `address`, its confirmation handled: sent, or skipped with the reason."""
    order = OrderFactory.create(customer_email=address)
    envelope = OutboxEvent.objects.get(aggregate_id=str(order.id)).payload
    event_dispatch(raw_envelope=envelope, delivery=DELIVERY)
    return Notification.objects.get(order=order)


def bounced(notification: Notification, *, reported_as: str) -> None:
    """A hard bounce of the email, the provider naming its recipient `reported_as`."""
    provider_event_store(
        TrackingEvent(
            provider="resend",
            provider_event_id=f"msg_{uuid.uuid4().hex}",
            kind="bounced",
            occurred_at=datetime.now(UTC),
            provider_message_id=f"re-{uuid.uuid4()}",
            idempotency_key=notification.idempotency_key,
            recipient=reported_as,
            hard_bounce=True,
            description="550 5.1.1 no such mailbox",
            payload={},
        )
    )
    _apply_all()
