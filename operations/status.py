"""The figures an operator looks at first: is anything stuck, and where."""

from datetime import datetime
from typing import TypedDict

from django.utils import timezone

from messaging.selectors import outbox_backlog
from notifications.selectors import notification_counts_by_status, notification_oldest_unfinished_since
from operations.dead_letters.reader import dead_letter_queue_depths


class OutboxStatus(TypedDict):
    outbox_backlog: int
    oldest_unpublished_age_seconds: float | None
    notifications_by_status: dict[str, int]
    oldest_unfinished_notification_age_seconds: float | None
    dead_letter_queues: dict[str, int | str]  # depth per queue, or {"error": why there are none}


def outbox_status() -> OutboxStatus:
    backlog = outbox_backlog()
    dlq: dict[str, int | str]
    try:
        dlq = dict(dead_letter_queue_depths())
    except Exception as exc:  # the database figures are still worth showing
        dlq = {"error": f"broker unreachable: {exc}"}
    return {
        "outbox_backlog": backlog.unpublished,
        "oldest_unpublished_age_seconds": _age(backlog.oldest_created_at),
        "notifications_by_status": notification_counts_by_status(),
        "oldest_unfinished_notification_age_seconds": _age(notification_oldest_unfinished_since()),
        "dead_letter_queues": dlq,
    }


def _age(moment: datetime | None) -> float | None:
    return round((timezone.now() - moment).total_seconds(), 1) if moment else None
