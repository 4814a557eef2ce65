"""Invoices and credit notes go once their keeping period is over: counted from the end of the
year of issue, so one issued 11 years ago goes, one issued 9 years ago stays, and one issued on
31 December ten years ago stays until 1 January. An invoice a kept credit note still corrects
stays until the note goes (a plain delete would raise, the step never does); an erased order's
documents go at their own time; a document another session holds is skipped, not waited for;
and a deleted document's number is never given again."""

import threading
import time
from datetime import UTC, datetime

import pytest
from django.db import connection, transaction
from django.db.models import ProtectedError
from django.utils import timezone

from messaging.models import RetentionRun
from messaging.retention import retention_run
from orders.invoicing.issue import credit_note_issue
from orders.invoicing.numbering import API_SERIES, number_take
from orders.invoicing.retention import invoices_delete_expired
from orders.models import DeletedInvoice, Invoice, Order
from orders.personal_data import orders_erase
from tests.integration.row_locks import row_held

pytestmark = pytest.mark.django_db

STEP = "invoices_and_credit_notes"  # its name in RETENTION_STEPS and in the job's report


@pytest.fixture(autouse=True)
def _small_batches(settings):
    settings.PERSONAL_DATA_RETENTION_BATCH_SIZE = 2  # several batches for a few documents
    settings.PERSONAL_DATA_RETENTION_PACE = 1.0  # no pause between them (the bench measures the pace)


def _issued_in(year: int, month: int = 6, day: int = 1, *, hour: int = 12, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def _invoice_issued(order: Order, when: datetime) -> Invoice:
    Invoice.objects.filter(order=order).update(issued_at=when)
    return Invoice.objects.get(order=order)


def _run(now: datetime | None = None) -> int:
    return invoices_delete_expired(now=now or timezone.now(), batch_size=5000, max_batches=1000)


def test_documents_issued_eleven_years_ago_go_and_nine_years_ago_stay(place_order):
    this_year = timezone.now().year
    old = [_invoice_issued(place_order(number=f"O{n}"), _issued_in(this_year - 11)) for n in range(3)]
    recent = _invoice_issued(place_order(number="R1"), _issued_in(this_year - 9))
    # when
    report = retention_run()
    # then: in batches of 2, each old one recorded as deleted; the job's report names the step
    assert report.steps_deleted[STEP] == 3
    assert not Invoice.objects.filter(pk__in=[invoice.pk for invoice in old]).exists()
    assert sorted(DeletedInvoice.objects.values_list("number_text", flat=True)) == sorted(
        invoice.number_text for invoice in old
    )
    assert Invoice.objects.filter(pk=recent.pk).exists()
    assert RetentionRun.objects.get().removed[f"{STEP}_deleted"] == 3
    # a second run finds nothing left
    assert retention_run().steps_deleted[STEP] == 0


def test_a_document_issued_on_31_december_ten_years_ago_goes_on_1_january(place_order):
    year = timezone.now().year
    invoice = _invoice_issued(place_order(), _issued_in(year - 10, 12, 31, hour=23, minute=30))
    # when: the last moment of this year, ten years after the year of issue
    kept = _run(now=datetime(year, 12, 31, 23, 59, 59, tzinfo=UTC))
    # then
    assert kept == 0
    assert Invoice.objects.filter(pk=invoice.pk).exists()
    # when: the first moment of the next
    deleted = _run(now=datetime(year + 1, 1, 1, 0, 0, 1, tzinfo=UTC))
    # then
    assert deleted == 1
    assert DeletedInvoice.objects.get(pk=invoice.pk).issued_at == invoice.issued_at


def test_an_old_invoice_stays_while_its_recent_credit_note_does_and_goes_with_it(place_order):
    this_year = timezone.now().year
    invoice = _invoice_issued(place_order(), _issued_in(this_year - 11))
    note = credit_note_issue(invoice, amount_minor=100)
    Invoice.objects.filter(pk=note.pk).update(issued_at=_issued_in(this_year - 2))
    with pytest.raises(ProtectedError), transaction.atomic():
        Invoice.objects.filter(pk=invoice.pk).delete()  # what a plain delete would do
    # when
    deleted = _run()
    # then: nothing deleted, nothing raised
    assert deleted == 0
    assert Invoice.objects.filter(pk__in=[invoice.pk, note.pk]).count() == 2
    # when the note's own period is over too: both go in one run (the note first)
    Invoice.objects.filter(pk=note.pk).update(issued_at=_issued_in(this_year - 11, 9))
    deleted = _run()
    # then
    assert deleted == 2
    assert not Invoice.objects.filter(order=invoice.order).exists()
    assert set(DeletedInvoice.objects.values_list("kind", flat=True)) == {"invoice", "credit_note"}


def test_an_erased_order_s_documents_go_at_their_time(place_order):
    this_year = timezone.now().year
    order = place_order()
    with transaction.atomic():
        changed = orders_erase([order.id], now=timezone.now())
    assert changed["invoices_kept"] == 1  # the erasure left it, as the law asks
    invoice = _invoice_issued(order, _issued_in(this_year - 10))
    assert _run() == 0  # within its period, erased or not
    # when
    Invoice.objects.filter(pk=invoice.pk).update(issued_at=_issued_in(this_year - 11))
    deleted = _run()
    # then
    assert deleted == 1
    assert DeletedInvoice.objects.get(pk=invoice.pk).order_id == order.id
    assert Order.objects.get(pk=order.pk).erased_at is not None  # the order itself stays


@pytest.mark.django_db(transaction=True)
def test_a_document_another_session_holds_is_skipped_not_waited_for(place_order):
    this_year = timezone.now().year
    held = _invoice_issued(place_order(number="H1"), _issued_in(this_year - 11))
    free = _invoice_issued(place_order(number="F1"), _issued_in(this_year - 11))
    release = threading.Event()
    holder = row_held(Invoice._meta.db_table, held.pk, release)
    try:
        with connection.cursor() as cursor:  # a wait would fail here rather than hang
            cursor.execute("SET lock_timeout = '2s'")
        started = time.monotonic()
        # when
        deleted = _run()
        # then
        assert time.monotonic() - started < 2
        assert deleted == 1
        assert Invoice.objects.filter(pk=held.pk).exists()
        assert not Invoice.objects.filter(pk=free.pk).exists()
    finally:
        release.set()
        holder.join(timeout=10)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    # the next run takes it
    assert _run() == 1


@pytest.mark.django_db(transaction=True)
def test_a_deleted_document_s_number_is_never_given_again(place_order):
    this_year = timezone.now().year
    first, second = (Invoice.objects.get(order=place_order(number=n)) for n in ("N1", "N2"))
    assert (first.series, [first.number, second.number]) == (API_SERIES, [1, 2])
    Invoice.objects.filter(pk__in=[first.pk, second.pk]).update(issued_at=_issued_in(this_year - 11))
    assert _run() == 2
    # when
    third = Invoice.objects.get(order=place_order(number="N3"))
    # then: the series' counter kept counting; the deleted numbers stay recorded as taken
    assert (third.series, third.number) == (API_SERIES, 3)
    assert sorted(DeletedInvoice.objects.filter(series=API_SERIES).values_list("number", flat=True)) == [1, 2]
    with transaction.atomic():
        assert number_take(API_SERIES) == 4
