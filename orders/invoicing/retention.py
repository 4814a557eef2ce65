"""A step of the hourly retention job (RETENTION_STEPS): invoices and credit notes deleted once
their keeping period is over. The period is counted as national rules count it (Germany's
§ 147 AO, § 14b UStG): RETENTION_YEARS from the end of the calendar year of issue, in the
deployment's time zone (the date printed on the document, orders/invoicing/issue.py), so a
document issued in 2016 goes from 1 January 2027 on.

A document another one still refers to (an invoice a kept credit note corrects) stays until
that one goes: a batch takes only documents nothing refers to, so PROTECT never refuses and
the step never raises; a credit note deleted frees its invoice for the next batch. Each
deleted document leaves its DeletedInvoice (which it was, never what it showed), and its
number stays taken: the series' counter (numbering.py) never goes back. Batches skip rows
someone holds (SKIP LOCKED): an issue or a render of the same row is never waited for, it is
taken next run. Paced as the personal data's steps (infra/batched_update.py): a document is a
large row (its PDF)."""

import time
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from infra.batched_update import pause_after
from orders.models import DeletedInvoice, Invoice
from orders.models.invoices import RETENTION_YEARS


def documents_kept_since(now: datetime) -> datetime:
    """The first moment of issue still kept at `now`: 1 January, RETENTION_YEARS before this
    year, at midnight in the deployment's time zone. Anything issued before it may go."""
    deployment = timezone.get_default_timezone()  # TIME_ZONE, as the printed date's
    return datetime(timezone.localtime(now, deployment).year - RETENTION_YEARS, 1, 1, tzinfo=deployment)


def invoices_delete_expired(*, now: datetime, batch_size: int, max_batches: int) -> int:
    """Delete the invoices and credit notes whose period is over; returns how many went."""
    referred = Invoice.objects.filter(corrects=OuterRef("pk"))
    expired = Invoice.objects.filter(issued_at__lt=documents_kept_since(now)).exclude(Exists(referred))
    size = min(batch_size, settings.PERSONAL_DATA_RETENTION_BATCH_SIZE)
    deleted = 0
    for _ in range(max_batches):
        started = time.monotonic()
        with transaction.atomic():
            batch = list(
                expired.select_for_update(skip_locked=True)
                .order_by("issued_at", "id")
                .values_list("id", "corrects_id")[:size]
            )
            if batch:
                deleted += _documents_delete([document_id for document_id, _ in batch], now=now)
        # a credit note deleted may have freed the invoice it corrected: look again
        freed = any(corrected is not None for _, corrected in batch)
        if len(batch) < size and not freed:
            break
        pause_after(time.monotonic() - started, settings.PERSONAL_DATA_RETENTION_PACE)
    return deleted


def _documents_delete(document_ids: list, *, now: datetime) -> int:
    """In the caller's transaction, which holds the rows locked: the record of each, then the
    rows (nothing refers to them, and nothing can start to while they are locked)."""
    documents = Invoice.objects.filter(id__in=document_ids).only(
        "id", "order_id", "kind", "series", "number", "number_text", "issued_at"
    )
    DeletedInvoice.objects.bulk_create(
        DeletedInvoice(
            id=document.id,
            order_id=document.order_id,
            kind=document.kind,
            series=document.series,
            number=document.number,
            number_text=document.number_text,
            issued_at=document.issued_at,
            deleted_at=now,
        )
        for document in documents
    )
    count, _ = Invoice.objects.filter(id__in=document_ids).delete()
    return count


def deleted_reason(document: DeletedInvoice) -> str:
    """Why a deleted document is not served, in the words the API, the admin and a refused
    email give."""
    kind, day = document.get_kind_display(), f"{document.deleted_at:%Y-%m-%d}"
    return (
        f"{kind} {document.number_text} was deleted on {day}, at the end of its retention period "
        f"({RETENTION_YEARS} years after the year of its issue)."
    )
