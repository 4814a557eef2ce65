"""Applying a stored provider event (the handler of the `mail.provider_event` event type):
find its notification by our key (or the provider's message id), settle an unknown outcome,
move the delivery state forward, and suppress the address after a hard bounce or complaint;
all in one transaction with the inbox row."""

import logging
import uuid

from django.db import transaction
from django.utils import timezone

from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from messaging.inbox import inbox_record
from notifications.models import Notification, ProviderEvent
from notifications.providers.base import TEST_KEY_PREFIX
from notifications.tracking.evidence import evidence_settle
from notifications.tracking.normalised import DELIVERY_STATUS_OF_KIND, DELIVERY_STATUS_RANK
from notifications.tracking.suppression import suppression_add
from orders.models import Order

logger = logging.getLogger(__name__)


def provider_event_handle(*, envelope: Envelope, delivery: Delivery) -> str:
    return provider_event_apply(
        provider_event_id=envelope.aggregate_id,
        event_id=envelope.event_id,
        inbox_key=envelope.event_type.inbox_key,
    )


@transaction.atomic
def provider_event_apply(*, provider_event_id: uuid.UUID, event_id: uuid.UUID, inbox_key: str) -> str:
    event = ProviderEvent.objects.select_for_update().filter(pk=provider_event_id).first()
    if event is None:  # removed by retention before a very late redelivery
        result = "the provider event is no longer stored"
    else:
        result = _apply(event)
        event.applied_at = timezone.now()
        event.result = result
        event.save(update_fields=["applied_at", "result", "notification"])
    inbox_record(event_id=event_id, inbox_key=inbox_key, result="applied")
    logger.info("provider event applied: %s", result)
    return result


def _apply(event: ProviderEvent) -> str:
    if event.idempotency_key.startswith(TEST_KEY_PREFIX):  # manage.py send_test_email: no order
        return "a test email's event, tied to no notification; stored for the record"
    notification = _notification_locked(event)
    if notification is None:
        return "no notification carries this key or message id; stored for the record"
    event.notification = notification
    results = [evidence_settle(notification, event), _delivery_status_advance(notification, event)]
    if event.kind == ProviderEvent.Kind.COMPLAINED or event.hard_bounce:
        address = notification.order.customer_email
        results.append("address suppressed" if suppression_add(address=address, event=event) else "")
    return "; ".join(result for result in results if result) or "nothing to change"


def _notification_locked(event: ProviderEvent) -> Notification | None:
    found = Notification.objects.none()
    if event.idempotency_key:
        found = Notification.objects.filter(idempotency_key=event.idempotency_key)
        if not found.exists():  # sent under a key a reviewer has since replaced
            found = Notification.objects.filter(retired_keys__key=event.idempotency_key)
    elif event.provider_message_id:
        found = Notification.objects.filter(provider_message_id=event.provider_message_id)
    ids = found.values_list("pk", "order_id").first()
    if ids is None:
        return None
    # The lock order of every writer: the order row, then the notification.
    Order.objects.select_for_update(no_key=True).filter(pk=ids[1]).first()
    return Notification.objects.select_for_update().select_related("order").get(pk=ids[0])


def _delivery_status_advance(notification: Notification, event: ProviderEvent) -> str:
    new = DELIVERY_STATUS_OF_KIND.get(ProviderEvent.Kind(event.kind))
    if new is None:
        return ""
    current = Notification.DeliveryStatus(notification.delivery_status)
    if DELIVERY_STATUS_RANK[new] <= DELIVERY_STATUS_RANK[current]:
        return f"delivery status stays {current.label} (event said {new.label})"
    notification.delivery_status = new
    notification.delivery_status_at = event.occurred_at
    notification.delivery_detail = event.description
    notification.save(update_fields=["delivery_status", "delivery_status_at", "delivery_detail"])
    return f"delivery status {new.label}"
