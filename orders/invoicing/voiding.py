"""Voiding a run of a series' numbers after a database restore to an earlier point.

The restore takes the series' counter (numbering.py) back with the rest, yet the invoices and
credit notes issued after the restore point were already emailed: their numbers are out in
the world, on documents this database no longer has. The next documents would be given those
numbers again, two different documents under one number. So the operator moves the counter
past the highest number given out (read from the provider's log of sent attachments, or the
shop's bookkeeping), and the skipped run is recorded as voided with the reason: the series'
gap is explained, and the reconciliation counts those numbers as held.
"""

from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from orders.models import DeletedInvoice, Invoice, InvoiceSequence, VoidedInvoiceNumbers

# A series whose first document came after the restore point has no counter row any more.
_COUNTER_CREATE = (
    f"INSERT INTO {InvoiceSequence._meta.db_table} (series, next_number) VALUES (%s, 1) "
    "ON CONFLICT (series) DO NOTHING"
)
# How far past the counter one void may go: a restore loses hours or days of documents, not
# this many; a figure beyond it is a typo (an extra digit), which would burn numbers for good.
MAX_VOID_AHEAD = 100_000


class VoidRefused(Exception):
    """The void was refused, nothing changed: the message says why and what to do."""


@dataclass(frozen=True)
class VoidPlan:
    series: str
    first: int  # the first number voided: the one the counter would have given next
    last: int
    next_number: int  # what the counter gives after the void


def invoice_numbers_void(
    *, series: str, through: int, reason: str, actor: str, dry_run: bool = False, new_series: bool = False
) -> VoidPlan:
    """Moves `series`' counter past `through` and records the numbers it skips as voided, or
    with `dry_run` only says so. Under the counter row's lock, the one an issuer holds from
    taking its number until its document commits (numbering.py): an issuer at work finishes
    first, and its number is read as given, never voided. `new_series` creates the counter of
    a series the restored database does not know (its first number was given after the
    restore point); without it an unknown series is refused as a likely typo."""
    reason = reason.strip()
    if not reason:
        raise VoidRefused('A reason is required, for the auditor: --reason "restore of 2026-12-06".')
    with transaction.atomic(durable=True):
        plan = _plan(series, through, _counter_locked(series, create=new_series, dry_run=dry_run))
        if dry_run:
            return plan
        InvoiceSequence.objects.filter(series=series).update(next_number=plan.next_number)
        VoidedInvoiceNumbers.objects.create(
            series=series,
            first=plan.first,
            last=plan.last,
            reason=reason,
            voided_by=actor,
            voided_at=timezone.now(),
        )
    return plan


def _counter_locked(series: str, *, create: bool, dry_run: bool) -> int:
    """The series' next number, its counter row locked (created first with `create`)."""
    if create and not dry_run:
        with connection.cursor() as cursor:
            cursor.execute(_COUNTER_CREATE, [series])
    locked = InvoiceSequence.objects.select_for_update().filter(series=series)
    next_number = locked.values_list("next_number", flat=True).first()
    if next_number is None and create:
        return 1  # a dry run: it would be created
    if next_number is None:
        known = ", ".join(InvoiceSequence.objects.order_by("series").values_list("series", flat=True))
        raise VoidRefused(
            f"No series {series!r} has a counter. Known series: {known or 'none'}. If its first "
            "document was issued after the restore point, pass --new-series."
        )
    return next_number


def _plan(series: str, through: int, next_number: int) -> VoidPlan:
    """The run to void, past `next_number` - 1; refused when it makes no sense."""
    given = next_number - 1
    if through <= given:
        raise VoidRefused(
            f"Series {series}'s counter already gave 1..{given} (next {next_number}): --through must be "
            f"beyond {given}, nothing to void."
        )
    if through - given > MAX_VOID_AHEAD:
        raise VoidRefused(
            f"--through {through} is {through - given} past the counter of series {series} (next "
            f"{next_number}); at most {MAX_VOID_AHEAD} at once: check the number for a typo."
        )
    held = sorted(
        number
        for holder in (Invoice, DeletedInvoice)
        for number in holder.objects.filter(
            series=series, number__gte=next_number, number__lte=through
        ).values_list("number", flat=True)
    )
    if held:
        raise VoidRefused(
            f"Documents here hold number(s) {', '.join(map(str, held[:10]))} of series {series}, past "
            "its counter: the counter is behind (reconcile reports it); those numbers are not void."
        )
    return VoidPlan(series=series, first=next_number, last=through, next_number=through + 1)
