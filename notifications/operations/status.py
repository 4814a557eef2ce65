"""The figures an operator looks at first: is anything stuck, and where."""

from datetime import datetime

from django.utils import timezone

from messaging.dead_letters.reader import dead_letter_queue_depths
from messaging.selectors import outbox_backlog
from notifications.selectors import notification_counts_by_status, notification_oldest_unfinished_since


def outbox_status() -> dict:
    backlog = outbox_backlog()
    try:
        dlq = dead_letter_queue_depths()
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
