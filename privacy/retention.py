"""A step of the hourly retention job (RETENTION_STEPS): an order's personal data, whoever its
customer, kept ORDER_PERSONAL_DATA_RETENTION_DAYS after the order was placed and then erased
as a customer's erasure erases it (orders/personal_data.py): its parcels and refunds come
within months, and the shop's own system, not this one, is its record. Only an order none of
whose emails is still to be sent; its emails' snapshots go with it. Batches skip rows a
claim holds (SKIP LOCKED), so the job never waits for, nor holds up, a worker, and are paced
(infra/batched_update.py).
"""

import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from infra.batched_update import pause_after
from notifications.models import Notification
from orders.models import Order
from orders.personal_data import orders_erase

_TO_BE_SENT = (Notification.Status.PENDING, Notification.Status.SENDING)


def orders_personal_data_expire(*, now: datetime, batch_size: int, max_batches: int) -> int:
    cutoff = now - timedelta(days=settings.ORDER_PERSONAL_DATA_RETENTION_DAYS)
    unsent = Notification.objects.filter(order=OuterRef("pk"), status__in=_TO_BE_SENT)
    expired = Order.objects.filter(created_at__lt=cutoff, erased_at__isnull=True).exclude(Exists(unsent))
    size = min(batch_size, settings.PERSONAL_DATA_RETENTION_BATCH_SIZE)
    erased = 0
    for _ in range(max_batches):
        started = time.monotonic()
        with transaction.atomic():
            batch = list(
                expired.select_for_update(no_key=True, skip_locked=True, of=("self",))
                .order_by("id")
                .values_list("id", flat=True)[:size]
            )
            if batch:
                erased += orders_erase(batch, now=now)["orders"]
                Notification.objects.filter(order_id__in=batch).update(
                    email_subject="",
                    email_text="",
                    email_html="",
                    email_content_hash="",
                    last_error_detail="",
                )
        if len(batch) < size:
            break
        pause_after(time.monotonic() - started, settings.PERSONAL_DATA_RETENTION_PACE)
    return erased
