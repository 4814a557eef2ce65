"""Reads of the backbone's tables that more than one screen needs: the outbox status
command, /metrics and the dashboard ask the same questions the same way."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min

from messaging.models import OutboxEvent


@dataclass(frozen=True)
class OutboxBacklog:
    unpublished: int
    oldest_created_at: datetime | None  # of the oldest unpublished event


def outbox_backlog() -> OutboxBacklog:
    figures = OutboxEvent.objects.filter(published_at__isnull=True).aggregate(
        count=Count("id"), oldest=Min("created_at")
    )
    return OutboxBacklog(unpublished=figures["count"], oldest_created_at=figures["oldest"])


def outbox_event_latest(*, aggregate_id: uuid.UUID | str, event_types: Sequence[str]) -> OutboxEvent | None:
    """The newest outbox event of these types about one aggregate, if retention left it."""
    return (
        OutboxEvent.objects.filter(aggregate_id=str(aggregate_id), event_type__in=event_types)
        .order_by("-created_at")
        .first()
    )
