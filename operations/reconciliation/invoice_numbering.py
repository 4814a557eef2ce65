"""What reconcile finds about the invoices' numbers: a series (orders/invoicing/numbering.py)
must hold every number its counter gave out exactly once. A number no document holds is a gap
(a document removed by hand, or a counter moved past the documents); one held twice is a
number given again; a counter behind a number already held will give it again.

A document the retention job deleted still holds its number: its DeletedInvoice (retention.py)
is read with the documents. A number voided after a database restore (VoidedInvoiceNumbers,
orders/invoicing/voiding.py: a document this database lost carries it) is held by its void;
one also held by a document here is held twice. Only the window's numbers are read: those above the highest
number issued before the window (older ones were checked by earlier runs), plus each series'
counter against its highest number (one row per series, read by the unique index's end).
"""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from notifications.models import ReconcileMismatch
from operations.reconciliation.findings import Finding, Found, found_of
from orders.models import DeletedInvoice, Invoice, InvoiceSequence, VoidedInvoiceNumbers

Problem = ReconcileMismatch.Problem
SERIES_SUBJECT = "invoice-series:"  # a finding's subject: this, then the series
SHOWN = 10  # a detail names this many gaps (or runs of them) at most
HOLDERS = (Invoice, DeletedInvoice)  # a number is held by a document, or by its deletion's record


@dataclass(frozen=True)
class NumberingFaults:
    """What is wrong with a series' numbers."""

    gaps: list[tuple[int, int]]  # runs (first, last) given out, or below one held, held by none
    twice: list[int]  # held by more than one document
    highest: int  # the highest number held
    counter: int  # the highest number the counter gave out: behind `highest`, it gives one again

    def __bool__(self) -> bool:
        return bool(self.gaps or self.twice or self.highest > self.counter)


def numbering_faults(*, base: int, counter: int, held: list[int], highest: int) -> NumberingFaults:
    """The faults of a series whose counter gave out 1..`counter` and whose highest number held
    is `highest`, from the numbers held (each as often as it is held) above `base` (the highest
    issued before the window) and those of the window's documents."""
    counts = Counter(held)
    above = sorted(number for number in counts if number > base)
    gaps, previous = [], base
    for number in [*above, max(counter, highest) + 1]:
        if number > previous + 1:
            gaps.append((previous + 1, number - 1))
        previous = number
    twice = sorted(number for number, count in counts.items() if count > 1)
    return NumberingFaults(gaps=gaps, twice=twice, highest=highest, counter=counter)


def broken_numbering(*, since: datetime, now: datetime) -> Found:
    """One finding per series whose numbers since `since` (or counter) are not 1..n once each."""
    findings = []
    for series in sorted(_series_to_check(since)):
        faults = _series_faults(series, since)
        if faults:
            findings.append(
                Finding(
                    problem=Problem.INVOICE_NUMBERING,
                    subject=f"{SERIES_SUBJECT}{series}",
                    day=timezone.localdate(now),
                    detail=f"Invoice series {series}: {numbering_words(faults)}.",
                )
            )
    return found_of(Problem.INVOICE_NUMBERING, findings)


def _series_to_check(since: datetime) -> set[str]:
    """The series with a document issued in the window, and those whose counter does not stand
    at their highest number held."""
    series = set()
    for holder in HOLDERS:
        series |= set(holder.objects.filter(issued_at__gte=since).values_list("series", flat=True).distinct())
    highest = [Coalesce(_highest(holder), 0) for holder in HOLDERS]
    voided = VoidedInvoiceNumbers.objects.filter(series=OuterRef("series")).order_by().values("series")
    highest.append(Coalesce(Subquery(voided.annotate(top=Max("last")).values("top")), 0))
    off = InvoiceSequence.objects.annotate(highest=Greatest(*highest)).filter(
        ~Q(next_number=F("highest") + 1)
    )
    return series | set(off.values_list("series", flat=True))


def _highest(holder: type[Invoice] | type[DeletedInvoice]) -> Subquery:
    """The highest number `holder` holds in the outer row's series."""
    rows = holder.objects.filter(series=OuterRef("series")).order_by().values("series")
    return Subquery(rows.annotate(top=Max("number")).values("top"))


def _series_faults(series: str, since: datetime) -> NumberingFaults:
    """The numbers above the highest issued before the window, and those the window's
    documents hold below it (an out-of-order one may be a number given again: each is looked
    up in both tables and the voided runs, as often as it is held)."""
    base, highest = 0, 0
    held: list[int] = []
    for holder in HOLDERS:
        rows = holder.objects.filter(series=series)
        before = rows.filter(issued_at__lt=since).aggregate(top=Max("number"))["top"] or 0
        base = max(base, before)
        highest = max(highest, rows.aggregate(top=Max("number"))["top"] or 0)
    late = [
        number
        for holder in HOLDERS
        for number in holder.objects.filter(
            series=series, issued_at__gte=since, number__lte=base
        ).values_list("number", flat=True)
    ]
    for holder in HOLDERS:
        rows = holder.objects.filter(series=series).filter(Q(number__gt=base) | Q(number__in=late))
        held += rows.values_list("number", flat=True)
    voided = _voided(series, base=base, late=set(late))
    held += voided
    highest = max([highest, *voided])
    sequence = InvoiceSequence.objects.filter(series=series).values_list("next_number", flat=True).first()
    return numbering_faults(base=base, counter=(sequence or 1) - 1, held=held, highest=highest)


def _voided(series: str, *, base: int, late: set[int]) -> list[int]:
    """The numbers voided after a restore above `base`, and those of `late` voided too."""
    runs = VoidedInvoiceNumbers.objects.filter(series=series).filter(
        Q(last__gt=base) | Q(first__lte=max(late, default=0))
    )
    return [
        number
        for first, last in runs.values_list("first", "last")
        for number in range(first, last + 1)
        if number > base or number in late
    ]


def numbering_words(faults: NumberingFaults) -> str:
    """The faults in plain words, for the mismatch's detail."""
    parts = []
    if faults.gaps:
        parts.append(
            f"no document holds number(s) {_runs(faults.gaps)} (given out, yet neither issued, "
            "voided after a restore nor deleted at the end of a retention period)"
        )
    if faults.twice:
        parts.append(f"number(s) {_runs([(n, n) for n in faults.twice])} held by two documents")
    if faults.highest > faults.counter:
        parts.append(
            f"its counter gives out {faults.counter + 1} next, yet {faults.highest} is already held: "
            "the next document would be refused its number"
        )
    return "; ".join(parts)


def _runs(runs: list[tuple[int, int]]) -> str:
    """[(1, 3), (7, 7)] -> "1-3, 7"; the first SHOWN runs and how many more."""
    shown = [f"{first}" if first == last else f"{first}-{last}" for first, last in runs[:SHOWN]]
    more = f" and {len(runs) - SHOWN} more" if len(runs) > SHOWN else ""
    return ", ".join(shown) + more
