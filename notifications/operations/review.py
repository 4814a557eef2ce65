"""What a reviewer can do with a notification that needs a person: retry it, reject it, or
take it on. The admin actions and `replay_dead_letters` call these, never their own copies."""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from messaging.models import OutboxEvent
from messaging.relay.publisher import PublishError
from messaging.relay.relay import outbox_events_publish
from notifications.delivery.state import notification_set_status
from notifications.models import Notification, OperatorAction
from notifications.operations.audit import action_finish, action_start
from notifications.selectors import notification_outbox_event

REVIEWABLE = Notification.NEEDS_PERSON_STATUSES


class ReviewRefused(Exception):
    """The action does not fit the notification's current state; nothing was changed."""


@dataclass(frozen=True)
class Reopened:
    notification: Notification
    previous_status: str


def notification_reopen(*, notification_id: int, actor_name: str) -> Reopened:
    """Put a failed or needs-review notification back to `pending`, after checking the
    order again, so that the next delivery of its event sends it (same idempotency key)."""
    with transaction.atomic():
        notification = (
            Notification.objects.select_for_update().select_related("order").get(pk=notification_id)
        )
        if notification.status not in REVIEWABLE:
            raise ReviewRefused(
                f"The notification is {notification.status}; only failed or review cases are retried."
            )
        previous = notification.status
        notification_set_status(
            notification,
            Notification.Status.PENDING,
            timezone.now(),
            reason=f"Retried by {actor_name} after: {notification.last_error}",
        )
    return Reopened(notification=notification, previous_status=previous)


def notification_retry(*, notification: Notification, actor: User) -> str:
    """The admin's retry: reopen, then publish the notification's own event again (same
    event id), confirmed by the broker. If the publish fails, the status goes back."""
    record = action_start(
        action=OperatorAction.Action.RETRY,
        actor=actor,
        actor_name=actor.get_username(),
        notification=notification,
    )
    event = _event_of(notification)
    record.event_id = event.id
    record.save(update_fields=["event_id"])
    reopened = notification_reopen(notification_id=notification.pk, actor_name=actor.get_username())
    try:
        report = outbox_events_publish([event])
        if report.failures:
            raise PublishError(report.failures[event.id])
    except PublishError as exc:
        _restore(reopened, reason=f"The retry could not be published: {exc}")
        action_finish(record, result=f"failed: {exc}")
        raise ReviewRefused(f"The retry could not be published ({exc}); nothing changed.") from exc
    action_finish(record, result=f"event {event.id} published again; the notification is pending")
    return "retried"


def notification_reject(*, notification: Notification, actor: User, comment: str) -> str:
    if not comment.strip():
        raise ReviewRefused("A rejection needs a comment that says why.")
    record = action_start(
        action=OperatorAction.Action.REJECT,
        actor=actor,
        actor_name=actor.get_username(),
        notification=notification,
        comment=comment,
    )
    with transaction.atomic():
        locked = Notification.objects.select_for_update().get(pk=notification.pk)
        if locked.status not in REVIEWABLE:
            action_finish(record, result=f"refused: the notification is {locked.status}")
            raise ReviewRefused(
                f"The notification is {locked.status}; only failed or review cases are rejected."
            )
        notification_set_status(
            locked,
            Notification.Status.REJECTED,
            timezone.now(),
            reason=f"Rejected by {actor.get_username()}: {comment}",
            reviewer_comment=comment,
        )
    action_finish(record, result="rejected; it will not be sent")
    return "rejected"


def notification_assign(*, notification: Notification, actor: User) -> str:
    record = action_start(
        action=OperatorAction.Action.ASSIGN,
        actor=actor,
        actor_name=actor.get_username(),
        notification=notification,
    )
    Notification.objects.filter(pk=notification.pk).update(owner=actor)
    action_finish(record, result=f"assigned to {actor.get_username()}")
    return "assigned"


def _event_of(notification: Notification) -> OutboxEvent:
    event = notification_outbox_event(notification)
    if event is None:
        raise ReviewRefused("No event of this notification is in the outbox; it cannot be published again.")
    return event


def _restore(reopened: Reopened, *, reason: str) -> None:
    with transaction.atomic():
        notification = Notification.objects.select_for_update().get(pk=reopened.notification.pk)
        if notification.status == Notification.Status.PENDING:
            notification_set_status(notification, reopened.previous_status, timezone.now(), reason=reason)
