"""The erasure's steps on tables no feature owns, where a customer's address or name can be
quoted: the dead letters' reasons (the backbone's), Celery's stored task failures (an error's
message, its traceback, the task's arguments) and the Django admin's history of changes (an
object's name as it was shown). A row about one of the customer's orders (its events, the
order, its emails) loses the customer's words; any other row loses their address alone."""

from datetime import datetime

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django_celery_results.models import TaskResult

from infra.text_scrub import text_erase
from messaging.models import DeadLetterRecord, OutboxEvent
from notifications.models import Notification
from orders.models import Refund, Shipment


def dead_letters_erase(
    *, order_ids: list, address: str, words: list[str], elsewhere: list[str], now: datetime
) -> dict[str, int]:
    events = OutboxEvent.objects.filter(aggregate_id__in=_aggregate_ids(order_ids)).values("id")
    changed = text_erase(
        DeadLetterRecord.objects.all(),
        ("reason",),
        mine=Q(event_id__in=events),
        words=words,
        elsewhere=elsewhere,
    )
    return {"dead_letters": changed}


def task_results_erase(
    *, order_ids: list, address: str, words: list[str], elsewhere: list[str], now: datetime
) -> dict[str, int]:
    # A task's arguments are an event's envelope: it names the order, parcel or refund by id.
    mine = Q(pk__in=[])
    for aggregate_id in _aggregate_ids(order_ids):
        mine |= Q(task_args__contains=aggregate_id) | Q(task_kwargs__contains=aggregate_id)
    fields = ("result", "traceback", "task_args", "task_kwargs", "meta")
    changed = text_erase(TaskResult.objects.all(), fields, mine=mine, words=words, elsewhere=elsewhere)
    return {"task_results": changed}


def admin_history_erase(
    *, order_ids: list, address: str, words: list[str], elsewhere: list[str], now: datetime
) -> dict[str, int]:
    emails = [
        str(pk) for pk in Notification.objects.filter(order_id__in=order_ids).values_list("pk", flat=True)
    ]
    mine = Q(object_id__in=_aggregate_ids(order_ids)) | Q(
        content_type=ContentType.objects.get_for_model(Notification), object_id__in=emails
    )
    fields = ("object_repr", "change_message")
    return {
        "admin_history": text_erase(
            LogEntry.objects.all(), fields, mine=mine, words=words, elsewhere=elsewhere
        )
    }


def _aggregate_ids(order_ids: list) -> list[str]:
    """The ids the events of these orders are about (the orders, their parcels and refunds),
    as the outbox and the admin's history write them (UUIDs: unique whatever their table)."""
    parcels = Shipment.objects.filter(order_id__in=order_ids).values_list("id", flat=True)
    refunds = Refund.objects.filter(order_id__in=order_ids).values_list("id", flat=True)
    return [str(pk) for pk in (*order_ids, *parcels, *refunds)]
