"""The handler of the deliberately broken build (tools/drill/broken_build.py): sends every delivery
it gets, under a fresh idempotency key, without looking at the notification's state."""

import uuid

from django.utils import timezone

from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from notifications.content.about import notification_about
from notifications.content.snapshot import email_render_for_order
from notifications.models import Notification
from notifications.providers.base import OutboundEmail, Outcome
from notifications.providers.catalogue import mail_provider
from notifications.selectors import notification_for_event


def naive_send(*, envelope: Envelope, delivery: Delivery) -> str:
    notification = notification_for_event(envelope.event_type.name, envelope.aggregate_id)
    if notification is None:
        raise LookupError(f"no email recorded for {envelope.event_type.name} {envelope.aggregate_id}")
    order, kind = notification.order, notification.kind
    about = notification_about(notification)
    rendered, _ = email_render_for_order(kind=kind, order=order, version=None, about=about)
    email = OutboundEmail(
        idempotency_key=str(uuid.uuid4()),
        to=order.customer_email,
        subject=rendered.subject,
        text=rendered.text,
        html=rendered.html,
        event_id=str(envelope.event_id),
    )
    result = mail_provider().send(email)
    if result.outcome == Outcome.ACCEPTED:
        Notification.objects.filter(pk=notification.pk).update(
            status=Notification.Status.SENT, sent_at=timezone.now(), status_changed_at=timezone.now()
        )
    return f"broken build: {result.outcome}"
