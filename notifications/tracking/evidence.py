"""Unknown outcomes settled by the provider's own evidence.

An email whose attempt ended unknown (or that the provider called a duplicate without
saying which message) waits for a person. If the provider then reports an event for it
(sent, delivered, delayed, bounced, complained: each proves it accepted the email), the
email was sent: the notification becomes `sent`, audited as settled by that evidence.

Only an event about the current send (notifications/tracking/apply.py) settles, and only an
unknown outcome under the current key: after a reviewer sent the email again under a new key,
the old key's attempts belong to another send, and their outcomes say nothing about this one.
"""

from django.utils import timezone

from notifications.delivery.state import notification_set_status
from notifications.models import DeliveryAttempt, Notification, OperatorAction, ProviderEvent

EVIDENCE_ACTOR = "provider evidence"
# Attempts after which nobody knew whether the provider accepted the email.
_UNSETTLED_OUTCOMES = (
    DeliveryAttempt.Outcome.UNKNOWN,
    DeliveryAttempt.Outcome.IN_FLIGHT,
    DeliveryAttempt.Outcome.ACCEPTED_EARLIER,
    DeliveryAttempt.Outcome.KEY_CONFLICT,
)
# Waiting for a person, or for a retry under the same key: not while a worker is mid-call
# (its own outcome decides), and never over a person's decision (failed, rejected).
_SETTLEABLE_STATUSES = (Notification.Status.NEEDS_REVIEW, Notification.Status.PENDING)


def evidence_settle(notification: Notification, event: ProviderEvent) -> str:
    """Mark the notification sent if the event settles its unknown outcome; say what happened."""
    if notification.status not in _SETTLEABLE_STATUSES:
        return ""
    unsettled = notification.attempts.filter(
        outcome__in=_UNSETTLED_OUTCOMES, number__gte=notification.key_first_attempt
    )
    if not unsettled.exists():
        return ""
    now = timezone.now()
    message_id = event.provider_message_id or notification.provider_message_id
    notification_set_status(
        notification, Notification.Status.SENT, now, provider_message_id=message_id, sent_at=event.occurred_at
    )
    what = f"{event.provider} reported {event.kind} for this email (event {event.provider_event_id})"
    OperatorAction.objects.create(
        actor_name=EVIDENCE_ACTOR,
        action=OperatorAction.Action.SETTLE,
        notification=notification,
        comment=f"Settled by the provider's evidence: {what}.",
        result=Notification.Status.SENT,
        finished_at=now,
    )
    return "settled: sent"
