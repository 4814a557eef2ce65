"""Replaying and discarding dead letters, one message at a time, safely.

For each message: re-check the order and its notification, put a failed notification back
to `pending` (the same service as the admin's retry), publish the message again with the
same event id to its work queue (never a delay queue) without the headers that would make
Celery revoke, re-count or loop it, wait for the broker's confirm, and only then ack the
dead-letter copy. A crash at any point leaves the copy in the DLQ: at worst the event is
published twice, and the inbox and the provider key make that one email.
"""

import uuid
from dataclasses import dataclass
from enum import StrEnum

from notifications.broker import dead_letters as dl
from notifications.broker.topology import RETRY_EXCHANGE
from notifications.models import Notification, OperatorAction
from notifications.operations.audit import action_finish, action_start
from notifications.operations.dead_letter_queue import DeadLetter, DeadLetterReader
from notifications.operations.review import notification_reopen
from notifications.registry import EVENT_TYPES
from notifications.relay.publisher import PublishError, RawMessage, process_publisher

# Headers that belong to the dead-lettering, not to the task: a replay starts clean.
# (RabbitMQ below 4.0.1 also drops a message with its own x-death as a dead-letter cycle.)
STRIPPED_HEADERS = {
    "x-death",
    "x-first-death-exchange",
    "x-first-death-queue",
    "x-first-death-reason",
    "x-last-death-exchange",
    "x-last-death-queue",
    "x-last-death-reason",
    "x-delivery-count",
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
    from orders.models import Order

    if letter.envelope is None or letter.event_type not in EVENT_TYPES:
        return Plan(Verdict.SKIP, f"cannot be replayed as it is ({letter.error_class}): discard it")
    order = Order.objects.filter(id=letter.order_id).first()
    if order is None:
        return Plan(Verdict.SKIP, f"the order {letter.order_id} does not exist: discard it")
    kind = EVENT_TYPES[letter.event_type].notification_kind
    notification = Notification.objects.filter(order=order, kind=kind).first() if kind else None
    if notification is None:
        return Plan(Verdict.REPLAY, "publish again")
    status = notification.status
    if status in (Notification.Status.SENT, Notification.Status.SKIPPED, Notification.Status.REJECTED):
        return Plan(
            Verdict.DONE, f"the notification is already {status}: remove the dead letter", notification
        )
    if status == Notification.Status.NEEDS_REVIEW and not include_needs_review:
        return Plan(
            Verdict.SKIP,
            "needs review: check at the provider whether it was sent, then retry it in the admin "
            "or replay with --include-needs-review",
            notification,
        )
    return Plan(Verdict.REPLAY, f"reopen the {status} notification and publish again", notification)


def dead_letter_replay(reader: DeadLetterReader, letter: DeadLetter, plan: Plan, *, actor_name: str) -> str:
    record = action_start(
        action=OperatorAction.Action.REPLAY,
        actor_name=actor_name,
        notification=plan.notification,
        event_id=letter.event_id,
    )
    if plan.verdict == Verdict.DONE:
        reader.ack(letter)
        action_finish(record, result=f"removed without publishing: {plan.why}")
        return "removed"
    if plan.notification is not None and plan.notification.status in (
        Notification.Status.FAILED,
        Notification.Status.NEEDS_REVIEW,
    ):
        notification_reopen(notification_id=plan.notification.pk, actor_name=actor_name)
    try:
        _republish(letter)
    except PublishError as exc:
        action_finish(record, result=f"failed, left in the dead-letter queue: {exc}")
        raise
    reader.ack(letter)
    action_finish(record, result=f"published again to {letter.work_queue}")
    return "replayed"


def dead_letter_discard(
    reader: DeadLetterReader, letter: DeadLetter, *, actor_name: str, comment: str
) -> str:
    record = action_start(
        action=OperatorAction.Action.DISCARD, actor_name=actor_name, event_id=letter.event_id, comment=comment
    )
    reader.ack(letter)
    action_finish(record, result=f"discarded from {letter.dead_letter_queue}: {letter.reason}")
    return "discarded"


def _republish(letter: DeadLetter) -> None:
    headers = {key: value for key, value in letter.headers.items() if key not in STRIPPED_HEADERS}
    # An old `expires` would make Celery revoke and ack it; a stale `retries` would cut the
    # retry budget short (reference celery-rabbitmq.md §A item 22).
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
