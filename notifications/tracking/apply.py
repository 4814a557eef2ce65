"""Applying a stored provider event (the handler of the `mail.provider_event` event type):
find the send it is about by our key (or the provider's message id); for the current send,
settle an unknown outcome and move the delivery state forward; for a send under a key a
reviewer has replaced, only record it in the email's history; after a hard bounce or a
complaint, suppress the address that send went to. All in one transaction with the inbox row."""

import logging
import uuid

from django.db import transaction
from django.utils import timezone

from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from messaging.inbox import inbox_record
from notifications.models import Notification, ProviderEvent, RetiredKey
from notifications.providers.base import TEST_KEY_PREFIX
from notifications.tracking.evidence import evidence_settle
from notifications.tracking.normalised import DELIVERY_STATUS_OF_KIND, DELIVERY_STATUS_RANK
from notifications.tracking.sends import event_send_locked, recipient_agrees
from notifications.tracking.suppression import suppression_add

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
    send = event_send_locked(event)
    if send is None:
        return "no notification carries this key or message id; stored for the record"
    event.notification = send.notification
    if not recipient_agrees(event, send):
        # The provider reports the address it was given, and under one key we give one. An
        # event naming another is not about our send (misattributed, or forged): acting on it
        # would suppress an address we never wrote to (perhaps another customer's) or settle an
        # email nobody saw, and suppressing ours would act on a bounce nobody reported for it.
        # It is kept, on the email's page, for a person to check.
        logger.warning("provider event %s names another recipient than its send's", event.pk)
        return (
            "the provider's recipient is not the address this email went to under that key: "
            "nothing changed; check the event at the provider"
        )
    if send.retired_key is None:  # the current send
        results = [
            evidence_settle(send.notification, event),
            _delivery_status_advance(send.notification, event),
        ]
    else:
        results = [_history(send.retired_key)]
    if (event.kind == ProviderEvent.Kind.COMPLAINED or event.hard_bounce) and send.address_hash:
        # The address that send went to bounced (or its owner complained): after a correction
        # the old, mistyped one, which no order should write to again; never the corrected one.
        # After the customer's erasure, by the address's keyed hash alone.
        suppressed = suppression_add(address=send.address, hashed=send.address_hash, event=event)
        results.append("address suppressed" if suppressed else "")
    return "; ".join(result for result in results if result) or "nothing to change"


def _history(retired_key: RetiredKey) -> str:
    """An event about a send a reviewer replaced: it tells what became of that send, and
    nothing about the current one, whose status and delivery state it leaves alone."""
    day = timezone.localdate(retired_key.retired_at).isoformat()
    return (
        f"about the earlier send under key v{retired_key.version} (replaced on {day}): "
        "kept in this email's history; the current send is unchanged"
    )


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
