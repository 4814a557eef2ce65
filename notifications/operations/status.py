"""The figures an operator looks at first: is anything stuck, and where."""

from django.db.models import Count, Min
from django.utils import timezone

from notifications.models import Notification, OutboxEvent
from notifications.operations.dead_letter_queue import dead_letter_queue_depths


def outbox_status() -> dict:
    now = timezone.now()
    backlog = OutboxEvent.objects.filter(published_at__isnull=True).aggregate(
        count=Count("id"), oldest=Min("created_at")
    )
    oldest_pending = Notification.objects.filter(
        status__in=[Notification.Status.PENDING, Notification.Status.SENDING]
    ).aggregate(oldest=Min("status_changed_at"))["oldest"]
    try:
        dlq = dead_letter_queue_depths()
    except Exception as exc:  # the database figures are still worth showing
        dlq = {"error": f"broker unreachable: {exc}"}
    return {
        "outbox_backlog": backlog["count"],
        "oldest_unpublished_age_seconds": _age(now, backlog["oldest"]),
        "notifications_by_status": dict(
            Notification.objects.values_list("status").annotate(n=Count("id")).order_by("status")
        ),
        "oldest_unfinished_notification_age_seconds": _age(now, oldest_pending),
        "dead_letter_queues": dlq,
    }


def _age(now, moment) -> float | None:
    return round((now - moment).total_seconds(), 1) if moment else None
