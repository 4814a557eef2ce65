"""A deliberately broken build, so the drill can prove it would catch one.

FAULT_BREAK_DEDUPE=1 (read once at start-up, like the crash points; nothing a request can
reach turns it on) makes the worker send every delivery it gets: no inbox check, no look at
the notification's state or lease, and a fresh idempotency key each time. Redelivered and
republished events then become duplicate emails. Only the drill's self-test sets it.
"""

import dataclasses
import os
import uuid

DEDUPE_BROKEN = os.environ.get("FAULT_BREAK_DEDUPE") == "1"


def naive_send(raw_envelope) -> str:
    from django.utils import timezone

    from notifications.delivery.emails import email_render
    from notifications.envelope import envelope_parse
    from notifications.models import Notification
    from notifications.providers.base import Outcome, mail_provider
    from notifications.registry import EVENT_TYPES
    from orders.models import Order

    envelope = envelope_parse(raw_envelope)
    kind = EVENT_TYPES[envelope.event_type].notification_kind
    if not kind:
        return "not an email"
    order = Order.objects.get(id=envelope.order_id)
    notification = Notification.objects.get(order=order, kind=kind)
    email = email_render(notification=notification, order=order, event_id=str(envelope.event_id))
    result = mail_provider().send(dataclasses.replace(email, idempotency_key=str(uuid.uuid4())))
    if result.outcome == Outcome.ACCEPTED:
        Notification.objects.filter(pk=notification.pk).update(
            status=Notification.Status.SENT, sent_at=timezone.now(), status_changed_at=timezone.now()
        )
    return f"broken build: {result.outcome}"
