"""The record of what people did (OperatorAction): started before the action, finished after
it, so an action interrupted half-way is visible as such. Written by the operators' tools
(the operations app) and by the email feature's own (a test send)."""

import uuid

from django.contrib.auth.models import User
from django.utils import timezone

from notifications.models import Notification, OperatorAction


def action_start(
    *,
    action: str,
    actor_name: str,
    actor: User | None = None,
    notification: Notification | None = None,
    event_id: uuid.UUID | None = None,
    comment: str = "",
) -> OperatorAction:
    return OperatorAction.objects.create(
        action=action,
        actor=actor,
        actor_name=actor_name,
        notification=notification,
        event_id=event_id,
        comment=comment,
        result="started",
    )


def action_finish(record: OperatorAction, *, result: str) -> None:
    record.result = result
    record.finished_at = timezone.now()
    record.save(update_fields=["result", "finished_at"])


def action_done(
    *,
    action: str,
    actor_name: str,
    result: str,
    actor: User | None = None,
    notification: Notification | None = None,
    comment: str = "",
) -> OperatorAction:
    """An action recorded at its end, inside the transaction that did it (nothing can be
    half done: the record commits with the change or not at all)."""
    return OperatorAction.objects.create(
        action=action,
        actor=actor,
        actor_name=actor_name,
        notification=notification,
        comment=comment,
        result=result,
        finished_at=timezone.now(),
    )
