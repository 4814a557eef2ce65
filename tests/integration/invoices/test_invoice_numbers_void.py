"""After a database restore to an earlier point, an operator voids the numbers that documents
emailed after the restore point carry (manage.py invoice_numbers_void): the counter moves past
them, the run is recorded with its reason, the next document continues after it, and the
reconciliation sees no gap there. Refused, changing nothing, when it makes no sense; and it
waits for an issuer that holds the counter's row. Real PostgreSQL."""

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from notifications.models import ReconcileMismatch
from operations.reconciliation.run import reconcile_run
from orders.invoicing.numbering import API_SERIES, number_take
from orders.invoicing.voiding import MAX_VOID_AHEAD
from orders.models import Invoice, InvoiceSequence, Order, VoidedInvoiceNumbers
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)
REASON = "restore of 2026-12-06"


def _void(*args: str) -> str:
    out = StringIO()
    call_command("invoice_numbers_void", *args, stdout=out)
    return out.getvalue()


def _counter() -> int:
    return InvoiceSequence.objects.get(series=API_SERIES).next_number


@pytest.fixture
def three_issued(place_order) -> list[Order]:
    """Invoices 1, 2, 3 of the API's series; its counter gives 4 next."""
    orders = [place_order(paid=True, number=f"V{n}") for n in range(3)]
    assert _counter() == 4
    return orders


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--series", API_SERIES, "--through", "9"], "A reason is required"),
        (["--series", API_SERIES, "--through", "9", "--reason", "  "], "A reason is required"),
        (["--series", API_SERIES, "--through", "3", "--reason", REASON], "--through must be beyond 3"),
        (["--series", "shop-typo", "--through", "9", "--reason", REASON], f"Known series: {API_SERIES}."),
        (
            ["--series", API_SERIES, "--through", str(3 + MAX_VOID_AHEAD + 1), "--reason", REASON],
            f"at most {MAX_VOID_AHEAD} at once",
        ),
    ],
    ids=["no reason", "blank reason", "not beyond the counter", "unknown series", "absurdly far"],
)
def test_a_void_that_makes_no_sense_is_refused_and_changes_nothing(three_issued, args, words):
    with pytest.raises(CommandError, match="Refused, nothing changed") as refused:
        _void(*args)
    assert words in str(refused.value)
    assert _counter() == 4
    assert not VoidedInvoiceNumbers.objects.exists()


def test_a_dry_run_says_what_it_would_void_and_changes_nothing(three_issued):
    said = _void("--series", API_SERIES, "--through", "7", "--reason", REASON, "--dry-run")
    assert said.strip() == f"series {API_SERIES}: would void number(s) 4-7; the next document gets 8"
    assert _counter() == 4
    assert not VoidedInvoiceNumbers.objects.exists()


def test_after_a_void_the_next_document_gets_the_number_after_it(three_issued, place_order):
    # when: 4..7 went out on documents the restore lost
    said = _void("--series", API_SERIES, "--through", "7", "--reason", REASON, "--actor", "olga")
    # then
    assert said.strip() == f"series {API_SERIES}: voided number(s) 4-7; the next document gets 8"
    voided = VoidedInvoiceNumbers.objects.get()
    assert (voided.series, voided.first, voided.last, voided.reason, voided.voided_by) == (
        API_SERIES,
        4,
        7,
        REASON,
        "olga",
    )
    later = place_order(paid=True, number="V-after")
    assert Invoice.objects.get(order=later).number == 8


def test_a_series_the_restored_database_does_not_know_is_voided_with_new_series(three_issued):
    said = _void("--series", "client-late", "--through", "2", "--reason", REASON, "--new-series", "--dry-run")
    assert said.strip() == "series client-late: would void number(s) 1-2; the next document gets 3"
    assert not InvoiceSequence.objects.filter(series="client-late").exists()
    # when
    _void("--series", "client-late", "--through", "2", "--reason", REASON, "--new-series")
    # then
    assert VoidedInvoiceNumbers.objects.values_list("series", "first", "last").get() == ("client-late", 1, 2)
    with transaction.atomic():
        assert number_take("client-late") == 3


def test_the_reconciliation_finds_no_gap_over_voided_numbers(three_issued, place_order):
    _void("--series", API_SERIES, "--through", "7", "--reason", REASON)
    # the counter past the last document, all voided: no finding
    reconcile_run(stuck_after=timedelta(0))
    assert not ReconcileMismatch.objects.filter(problem="invoice_numbering").exists()
    # and with a document after the voided run, none either
    place_order(paid=True, number="V-after")
    reconcile_run(stuck_after=timedelta(0))
    assert not ReconcileMismatch.objects.filter(problem="invoice_numbering").exists()


def test_a_void_waits_for_an_issuer_holding_the_counter_and_voids_after_its_number(three_issued):
    taken, release = threading.Event(), threading.Event()
    numbers: list[int] = []

    def issuer() -> None:
        try:
            with transaction.atomic():
                numbers.append(number_take(API_SERIES))  # 4, its row locked until the commit
                taken.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    def voider() -> None:
        try:
            _void("--series", API_SERIES, "--through", "9", "--reason", REASON)
        finally:
            connection.close()

    threads = [threading.Thread(target=issuer)]
    threads[0].start()
    assert taken.wait(timeout=10)
    threads.append(threading.Thread(target=voider))
    threads[1].start()
    wait_until(_a_session_waits_for_a_lock, timeout=10, message="the void waiting for the counter's lock")
    assert not VoidedInvoiceNumbers.objects.exists()
    release.set()
    for thread in threads:
        thread.join(timeout=30)
    # then: the issuer's 4 is given, the void starts after it
    assert numbers == [4]
    assert VoidedInvoiceNumbers.objects.values_list("first", "last").get() == (5, 9)
    assert _counter() == 10


def _a_session_waits_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query LIKE %s",
            ["%FOR UPDATE%"],
        )
        return cursor.fetchone()[0] > 0
