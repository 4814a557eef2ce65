"""What a reviewer can do with a notification that needs a person: retry it, reject it, or
take it on. The admin actions and `replay_dead_letters` call these, never their own copies."""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from messaging.outbox import event_record
from messaging.relay.publisher import PublishError
from messaging.relay.relay import outbox_events_publish
from notifications.audit import action_finish, action_start
from notifications.delivery.state import notification_set_status, resend_is_safe, uncertain_at
from notifications.events import EVENT_OF_EMAIL_KIND
from notifications.models import DeliveryAttempt, Notification, OperatorAction
from notifications.providers.catalogue import mail_providers
from notifications.selectors import notification_outbox_event

REVIEWABLE = Notification.NEEDS_PERSON_STATUSES
# A pending email can be rejected too (the restore runbook asks for it); one a worker is
# sending right now cannot: its outcome comes first.
REJECTABLE = (*REVIEWABLE, Notification.Status.PENDING)
OTHER_WAYS = "Check at the provider and mark it sent, or send it again under a new key."


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
        dead_end = retry_dead_end(notification)
        if dead_end:
            raise ReviewRefused(f"{dead_end} {OTHER_WAYS}")
        previous = notification.status
        notification_set_status(
            notification,
            Notification.Status.PENDING,
            timezone.now(),
            reason=f"Retried by {actor_name} after: {notification.last_error}",
        )
    return Reopened(notification=notification, previous_status=previous)


def retry_dead_end(notification: Notification) -> str:
    """Why a retry under the same key would only stop at review again, or "" if it can help."""
    last = notification.attempts.order_by("-number").first()
    if last is not None and last.outcome == DeliveryAttempt.Outcome.KEY_CONFLICT:
        return "The provider refused the key: it holds a different email under it, and would refuse it again."
    holders = uncertain_at(notification)  # the providers an earlier attempt may have reached
    if not holders:
        return ""
    provider = mail_providers().named(next(iter(holders))) if len(holders) == 1 else None
    if provider is None:
        return (
            f"An earlier attempt may have reached the customer through {' and '.join(sorted(holders))}, "
            "which is not a provider this email could be resent through: a retry would stop at review again."
        )
    if resend_is_safe(notification, provider, timezone.now()):
        return ""
    window = provider.capabilities.key_window
    if window is None:
        why = f"{provider.name} cannot recognise a resend (it keeps no idempotency keys)"
    else:
        why = f"the first attempt was longer ago than {provider.name} remembers keys ({window})"
    return f"An earlier attempt may have reached the customer and {why}: a retry would stop at review again."


def notification_retry(*, notification: Notification, actor: User | None, actor_name: str = "") -> str:
    """The admin's retry: reopen, then publish the notification's own event again (same
    event id), confirmed by the broker. If the publish fails, the status goes back. If
    retention has removed the event from the outbox, a new event of its type is recorded
    with the reopening instead (the relay publishes it)."""
    name = actor_name or _username(actor)
    record = action_start(
        action=OperatorAction.Action.RETRY,
        actor=actor,
        actor_name=name,
        notification=notification,
    )
    event = notification_outbox_event(notification)
    if event is None:
        return _retry_with_new_event(notification, name, record)
    record.event_id = event.id
    record.save(update_fields=["event_id"])
    try:
        reopened = notification_reopen(notification_id=notification.pk, actor_name=name)
    except ReviewRefused as exc:
        action_finish(record, result=f"refused: {exc}")
        raise
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


def notification_reject(
    *, notification: Notification, actor: User | None, comment: str, actor_name: str = ""
) -> str:
    if not comment.strip():
        raise ReviewRefused("A rejection needs a comment that says why.")
    name = actor_name or _username(actor)
    record = action_start(
        action=OperatorAction.Action.REJECT,
        actor=actor,
        actor_name=name,
        notification=notification,
        comment=comment,
    )
    with transaction.atomic():
        locked = Notification.objects.select_for_update().get(pk=notification.pk)
        if locked.status not in REJECTABLE:
            action_finish(record, result=f"refused: the notification is {locked.status}")
            raise ReviewRefused(
                f"The notification is {locked.status}; only pending, failed or review cases are rejected."
            )
        notification_set_status(
            locked,
            Notification.Status.REJECTED,
            timezone.now(),
            reason=f"Rejected by {name}: {comment}",
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


def _retry_with_new_event(notification: Notification, actor_name: str, record: OperatorAction) -> str:
    try:
        with transaction.atomic():
            notification_reopen(notification_id=notification.pk, actor_name=actor_name)
            event = event_record(
                event_type=EVENT_OF_EMAIL_KIND[notification.kind],
                aggregate_id=notification.event_aggregate_id,
            )
    except ReviewRefused as exc:
        action_finish(record, result=f"refused: {exc}")
        raise
    record.event_id = event.id
    record.save(update_fields=["event_id"])
    action_finish(
        record,
        result=f"the outbox no longer held its event (retention); new event {event.id} recorded, "
        "the notification is pending",
    )
    return "retried"


def _restore(reopened: Reopened, *, reason: str) -> None:
    with transaction.atomic():
        notification = Notification.objects.select_for_update().get(pk=reopened.notification.pk)
        if notification.status == Notification.Status.PENDING:
            notification_set_status(notification, reopened.previous_status, timezone.now(), reason=reason)


def _username(actor: User | None) -> str:
    if actor is None:
        raise ValueError("an action needs the user or the name of who does it")
    return actor.get_username()
