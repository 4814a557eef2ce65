"""After a database restore to an earlier point, before the workers and the relay start.

The broker did not go back in time with the database: its work queues may hold events of
orders the database no longer has, and the outbox has events whose `published_at` was lost.
This check moves the former to the dead-letter queue with that reason (byte for byte, the
copy confirmed before the original is removed), and publishes the latter now. It also
publishes again the events of the emails that were in flight at the restore point (pending or
sending, their event consumed before the crash, so nothing of them is queued): with the
workers stopped nobody holds them, and a repair would take them only once they had been
unfinished for its threshold, so they would wait that long for nothing. The inbox and the
provider key absorb what had been delivered before the crash: a resend goes under the
email's original key.
"""

from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from django.conf import settings
from django.utils import timezone
from kombu import Connection

from messaging.broker.channel import amqp_channel, queue_counts
from messaging.broker.topology import work_queues
from messaging.dead_lettering import dead_letter_message
from messaging.identity import current_process_name
from messaging.relay.relay import outbox_events_publish, relay_outbox_sweep
from notifications.models import Notification
from notifications.selectors import notification_outbox_event
from operations.dead_letters.reader import envelope_of
from orders.models import Order


class WorkersRunning(Exception):
    pass


@dataclass
class RestoreCheck:
    messages_checked: int = 0
    dead_lettered: list[str] = field(default_factory=list)  # event ids of orders not in the database
    events_published: int = 0
    in_flight_republished: int = 0  # events of emails in flight at the restore point


def restore_check(*, allow_consumers: bool = False) -> RestoreCheck:
    result = RestoreCheck()
    started = timezone.now()
    queued: set[str] = set()  # event ids of the messages put back: they need no second copy
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=5) as connection:
        channel = amqp_channel(connection)
        busy = {q.name: queue_counts(channel, q.name)[1] for q in work_queues()}
        if any(busy.values()) and not allow_consumers:
            raise WorkersRunning(f"Workers are consuming {busy}: stop them first, or they race this check.")
        for queue in work_queues():
            while (raw := channel.basic_get(queue=queue.name, no_ack=False)) is not None:
                message = channel.message_to_python(raw)  # a kombu Message: headers, ack()
                result.messages_checked += 1
                # kombu's stub says `str | None`: a received body is bytes, or str once decoded.
                body = cast(bytes | str, message.body)
                order_id = (envelope_of(body, message.content_type) or {}).get("order_id")
                if order_id and not Order.objects.filter(id=order_id).exists():
                    reason = (
                        f"The order {order_id} is not in the database (restored to an earlier point?): "
                        "decide whether it must be entered again, then discard this message."
                    )
                    if dead_letter_message(
                        message, reason=reason, error_class="restore", worker=current_process_name()
                    ):
                        message.ack()
                        result.dead_lettered.append(str(message.headers.get("id")))
                else:
                    queued.add(str(message.headers.get("id")))
        # closing the channel puts back, unacked, every message whose order exists
    result.events_published = relay_outbox_sweep(time_budget_seconds=60).published
    result.in_flight_republished = _republish_in_flight(published_before=started, queued=queued)
    return result


def _republish_in_flight(*, published_before: datetime, queued: set[str]) -> int:
    """The events of unfinished emails that were published before this check (not by its
    sweep just now) and are not waiting in a queue: consumed before the crash."""
    events = {
        notification_outbox_event(notification)
        for notification in Notification.objects.filter(status__in=Notification.UNFINISHED_STATUSES)
    }
    again = sorted(
        (
            event
            for event in events
            if event is not None
            and event.published_at is not None
            and event.published_at < published_before
            and str(event.id) not in queued
        ),
        key=lambda event: event.created_at,
    )
    report = outbox_events_publish(again)
    return len(again) - len(report.failures)
