"""The erasure's steps on tables no feature owns, where a customer's address or name can be
quoted: the dead letters' reasons (the backbone's), Celery's stored task failures (an error's
message, its traceback, the task's arguments) and the Django admin's history of changes (an
object's name as it was shown)."""

from datetime import datetime

from django.contrib.admin.models import LogEntry
from django_celery_results.models import TaskResult

from infra.text_scrub import text_quotes, text_scrubbed
from messaging.models import DeadLetterRecord


def dead_letters_erase(*, order_ids: list, address: str, words: list[str], now: datetime) -> dict[str, int]:
    quoting = DeadLetterRecord.objects.filter(text_quotes("reason", words))
    return {"dead_letters": quoting.update(reason=text_scrubbed("reason", words))}


def task_results_erase(*, order_ids: list, address: str, words: list[str], now: datetime) -> dict[str, int]:
    fields = ("result", "traceback", "task_args", "task_kwargs", "meta")
    quoting = TaskResult.objects.none()
    for field in fields:
        quoting |= TaskResult.objects.filter(text_quotes(field, words))
    changed = TaskResult.objects.filter(pk__in=quoting.values("pk")).update(
        **{field: text_scrubbed(field, words) for field in fields}
    )
    return {"task_results": changed}


def admin_history_erase(*, order_ids: list, address: str, words: list[str], now: datetime) -> dict[str, int]:
    quoting = LogEntry.objects.filter(
        text_quotes("object_repr", words) | text_quotes("change_message", words)
    )
    changed = quoting.update(
        object_repr=text_scrubbed("object_repr", words), change_message=text_scrubbed("change_message", words)
    )
    return {"admin_history": changed}
