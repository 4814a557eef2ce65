"""The whole path of one event (or of every event of one order), in time order, from our
own records: the order, the outbox, deliveries and provider calls, dead-lettering,
operators' replays and retries, and whether a copy waits in a dead-letter queue now."""

import uuid
from collections.abc import Set
from dataclasses import dataclass
from datetime import datetime

from messaging.models import DeadLetterRecord, OutboxEvent
from notifications.models import DeliveryAttempt, Notification, OperatorAction
from notifications.selectors import notification_for_event
from orders.models import Order
from orders.selectors import subject_order_id


@dataclass(frozen=True)
class Step:
    at: datetime
    what: str


def event_trace(identifier: uuid.UUID, *, dead_letter_event_ids: Set[uuid.UUID] = frozenset()) -> list[Step]:
    """Steps for an event id, or for all events of an order id (its shipments' among them);
    empty if neither is known."""
    events = list(OutboxEvent.objects.filter(id=identifier))
    order_id = subject_order_id(events[0].aggregate_type, events[0].aggregate_id) if events else identifier
    order = Order.objects.filter(id=order_id).first() if order_id else None
    if order is not None and not events:
        subjects = Notification.objects.filter(order=order, subject_id__isnull=False).values_list(
            "subject_id", flat=True
        )
        about = [str(order.id), *(str(subject) for subject in subjects)]
        events = list(OutboxEvent.objects.filter(aggregate_id__in=about))
    if order is None and not events:
        return []
    steps = []
    if order is not None:
        steps.append(
            Step(order.created_at, f"order {order.id} created ({order.status} now, version {order.version})")
        )
    for event in events:
        steps += _event_steps(event, dead_letter_event_ids)
    return sorted(steps, key=lambda step: step.at)


def _event_steps(event: OutboxEvent, dead_letter_event_ids: Set[uuid.UUID]) -> list[Step]:
    steps = [Step(event.created_at, f"event {event.id} {event.event_type} written to the outbox")]
    if event.published_at:
        steps.append(
            Step(
                event.published_at,
                f"  published to RabbitMQ (confirmed; {event.publish_attempts} publish attempt(s))",
            )
        )
    elif event.last_publish_error:
        steps.append(Step(event.created_at, f"  not published yet: {event.last_publish_error}"))
    notification = notification_for_event(event.event_type, event.aggregate_id)
    for attempt in DeliveryAttempt.objects.filter(event_id=event.id).order_by("started_at"):
        steps.append(Step(attempt.started_at, _attempt_text(attempt)))
    for record in DeadLetterRecord.objects.filter(event_id=event.id):
        steps.append(
            Step(
                record.dead_lettered_at,
                f"  dead-lettered from {record.queue} ({record.error_class}): {record.reason}",
            )
        )
    actions = OperatorAction.objects.filter(event_id=event.id)
    if notification is not None:
        actions = actions | OperatorAction.objects.filter(notification=notification)
    for action in actions.distinct():
        steps.append(Step(action.created_at, f"  {action.action} by {action.actor_name}: {action.result}"))
    if notification is not None:
        steps.append(
            Step(
                notification.status_changed_at,
                f"  notification {notification.kind} is {notification.status}"
                + (f": {notification.last_error}" if notification.last_error else ""),
            )
        )
    if event.id in dead_letter_event_ids:
        steps.append(Step(max(step.at for step in steps), "  a copy is in a dead-letter queue now"))
    return steps


def _attempt_text(attempt: DeliveryAttempt) -> str:
    outcome = attempt.outcome or "no outcome recorded (the worker stopped during the call)"
    status = f" HTTP {attempt.http_status}" if attempt.http_status else ""
    message = f" message {attempt.provider_message_id}" if attempt.provider_message_id else ""
    error = f": {attempt.error}" if attempt.error and attempt.outcome != "accepted" else ""
    provider = f" to {attempt.provider}" if attempt.provider else ""
    return f"  attempt {attempt.number} by {attempt.worker}{provider}: {outcome}{status}{message}{error}"
