"""A customer's erasure, on what the shops' platforms sent about them: each delivery's body
(the platform's whole order: addresses, names, lines) of the customer's orders, and any other
delivery whose body quotes the address or name (one waiting for its order, one that could not
be used, a platform's privacy request). What stays: which delivery came, when, for which
platform order, and what it did, so the intake's history still shows each event stored once.
Called by the erasure and the export through PERSONAL_DATA_ERASURE_STEPS and
PERSONAL_DATA_EXPORT_STEPS (privacy/erasure.py, privacy/export.py)."""

import json
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q

from infra.batched_update import update_in_batches
from infra.text_scrub import text_quotes, text_scrubbed
from intake.models import PlatformDelivery


def deliveries_erase(*, order_ids: list, address: str, words: list[str], now: datetime) -> dict[str, int]:
    deliveries = PlatformDelivery.objects.filter(
        Q(order_id__in=order_ids) | text_quotes("body", words) | text_quotes("reason", words)
    ).exclude(body="")
    return {"platform_deliveries": deliveries.update(body="", reason=text_scrubbed("reason", words))}


def delivery_bodies_expire(*, now: datetime, batch_size: int, max_batches: int) -> int:
    """A step of the hourly retention job: a delivery's body (the platform's whole order, with
    the customer's address, name, IP address and lines) kept PLATFORM_DELIVERY_BODY_RETENTION_DAYS
    after it came: long past the platforms' retries (hours) and a person's re-run of one that
    could not be used; what it did stays."""
    cutoff = now - timedelta(days=settings.PLATFORM_DELIVERY_BODY_RETENTION_DAYS)
    return update_in_batches(
        PlatformDelivery.objects.filter(received_at__lt=cutoff).exclude(body=""),
        batch_size=min(batch_size, settings.PERSONAL_DATA_RETENTION_BATCH_SIZE),
        max_batches=max_batches,
        pace=settings.PERSONAL_DATA_RETENTION_PACE,
        body="",
    )


def deliveries_export(*, order_ids: list, address: str, words: list[str]) -> dict[str, Any]:
    """What the shops' platforms sent about the customer, each delivery's body as it came."""
    deliveries = PlatformDelivery.objects.filter(Q(order_id__in=order_ids) | text_quotes("body", words))
    return {
        "what the shops' platforms sent": [
            {
                "shop": delivery.shop.name,
                "platform": delivery.shop.get_platform_display(),
                "what": delivery.topic,
                "received at": delivery.received_at.isoformat(),
                "as sent": _parsed(delivery.body),
            }
            for delivery in deliveries.select_related("shop").order_by("received_at")
        ]
    }


def _parsed(body: str) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body
