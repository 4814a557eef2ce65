"""Replaying and discarding dead letters, one message at a time, safely.

For each message: re-check the order and its notification, put a failed notification back
to `pending` (the same service as the admin's retry), publish the message again (the same
bytes and event id, to the work queue it came from, never a delay queue, without the headers
that would make Celery revoke, re-count or loop it, confirmed by the broker) and only then ack
the dead-letter copy. A crash at any point leaves the copy in the DLQ: at worst the event is
published twice, and the inbox and the provider key make that one email.
"""

import uuid
from dataclasses import dataclass
from enum import StrEnum

from django.contrib.auth.models import User

from messaging import dead_lettering as dl
from messaging.broker.headers import BROKER_DELIVERY_HEADERS
from messaging.broker.topology import RETRY_EXCHANGE
from messaging.registry import event_types
from messaging.relay.messages import RawMessage
from messaging.relay.publisher import PublishError, process_publisher
from messaging.retry_policy import RETRY_SINCE_HEADER, WAITING_SINCE_HEADER
from notifications.audit import action_finish, action_start
from notifications.models import Notification, OperatorAction
from notifications.selectors import notification_for_event
from operations.dead_letters.reader import DeadLetter, DeadLetterReader
from operations.review.services import OTHER_WAYS, ReviewRefused, notification_reopen, retry_dead_end
from orders.selectors import subject_order_id

# Headers that belong to the dead-lettering, not to the task: a replay starts clean. Its retry
# budget too: the time since the first failure would otherwise dead-letter the replay at its
# first transient failure, the budget having run out while it lay in the DLQ.
STRIPPED_HEADERS = {
    *BROKER_DELIVERY_HEADERS,
    RETRY_SINCE_HEADER,
    WAITING_SINCE_HEADER,
    dl.REASON_HEADER,
    dl.CLASS_HEADER,
    dl.AT_HEADER,
    dl.BY_HEADER,
    dl.ORIGIN_EXCHANGE_HEADER,
    dl.ORIGIN_ROUTING_KEY_HEADER,
    dl.QUEUE_HEADER,
}


class Verdict(StrEnum):
    REPLAY = "replay"
    DONE = "done"  # already handled: the dead letter only needs to go
    SKIP = "skip"  # left in the DLQ for a person


@dataclass(frozen=True)
class Plan:
    verdict: Verdict
    why: str
    notification: Notification | None = None


def dead_letter_plan(letter: DeadLetter, *, include_needs_review: bool = False) -> Plan:
    """What a replay would do with this message, from the current database state."""
    if letter.envelope is None or letter.event_type not in event_types():
        return Plan(Verdict.SKIP, f"cannot be replayed as it is ({letter.error_class}): discard it")
    if subject_order_id(event_types()[letter.event_type].aggregate, letter.aggregate_id) is None:
        return Plan(Verdict.SKIP, f"the order of {letter.aggregate_id} does not exist: discard it")
    notification = notification_for_event(letter.event_type, letter.aggregate_id)
    if notification is None:
        return Plan(Verdict.REPLAY, "publish again")
    status = notification.status
    if status in Notification.DONE_STATUSES:
        return Plan(
            Verdict.DONE, f"the notification is already {status}: remove the dead letter", notification
        )
    if status == Notification.Status.NEEDS_REVIEW and not include_needs_review:
        return Plan(
            Verdict.SKIP,
            "needs review: check at the provider whether it was sent, then retry it in the admin, "
            "or replay it including emails that may have gone out (--include-needs-review)",
            notification,
        )
    dead_end = retry_dead_end(notification) if status in Notification.NEEDS_PERSON_STATUSES else ""
    if dead_end:  # a replay is a retry under the same key: it would stop at review again
        return Plan(Verdict.SKIP, f"{dead_end} {OTHER_WAYS}", notification)
    return Plan(Verdict.REPLAY, f"reopen the {status} notification and publish again", notification)


def dead_letter_replay(
    reader: DeadLetterReader, letter: DeadLetter, plan: Plan, *, actor_name: str, actor: User | None = None
) -> str:
    """Raises PublishError (not confirmed) or ReviewRefused (the notification changed since
    the plan); either way the message stays in its dead-letter queue and the record says so."""
    record = action_start(
        action=OperatorAction.Action.REPLAY,
        actor_name=actor_name,
        actor=actor,
        notification=plan.notification,
        event_id=letter.event_id,
    )
    if plan.verdict == Verdict.DONE:
        reader.ack(letter)
        action_finish(record, result=f"removed without publishing: {plan.why}")
        return "removed"
    if plan.notification is not None and plan.notification.status in Notification.NEEDS_PERSON_STATUSES:
        try:
            notification_reopen(notification_id=plan.notification.pk, actor_name=actor_name)
        except ReviewRefused as exc:
            action_finish(record, result=f"refused, left in the dead-letter queue: {exc}")
            raise
    try:
        dead_letter_republish(letter)
    except PublishError as exc:
        action_finish(record, result=f"failed, left in the dead-letter queue: {exc}")
        raise
    reader.ack(letter)
    action_finish(record, result=f"published again to {letter.work_queue}")
    return "replayed"


def dead_letter_discard(
    reader: DeadLetterReader, letter: DeadLetter, *, actor_name: str, comment: str, actor: User | None = None
) -> str:
    record = action_start(
        action=OperatorAction.Action.DISCARD,
        actor_name=actor_name,
        actor=actor,
        event_id=letter.event_id,
        comment=comment,
    )
    reader.ack(letter)
    action_finish(record, result=f"discarded from {letter.dead_letter_queue}: {letter.reason}")
    return "discarded"


def dead_letter_republish(letter: DeadLetter) -> None:
    """Raises PublishError unless the broker confirmed the copy."""
    headers = {key: value for key, value in letter.headers.items() if key not in STRIPPED_HEADERS}
    # An old `expires` would make Celery revoke and ack it; a stale `retries` would cut the
    # retry budget short (docs/celery-and-rabbitmq.md, "Replaying a dead letter").
    headers.update({"expires": None, "eta": None, "retries": 0})
    message = RawMessage(
        event_id=uuid.uuid4(),
        body=letter.body,
        exchange=RETRY_EXCHANGE.name,  # each work queue is bound there by its own name
        routing_key=letter.work_queue,
        content_type=letter.content_type,
        content_encoding=letter.content_encoding,
        headers=headers,
        properties={
            k: letter.properties[k] for k in ("message_id", "correlation_id") if letter.properties.get(k)
        },
    )
    report = process_publisher().publish([message])
    if report.failed:
        raise PublishError(report.failed[message.event_id])
