"""The reconciliation checks the invoices and credit notes as a shop's accountant would: an
order with lines paid (or placed, as INVOICE_ISSUED_WHEN says) without its invoice; an invoiced
order whose documents do not add up to what it owes (settlement.to_credit is not 0); a series
with a gap or a number twice. Each a mismatch with an owner and a due date, closed by the run
once it is gone; an erased order, a short-body order and a document the retention job deleted
raise nothing. Real PostgreSQL; the orders and documents are made by the product's own services
and then broken the way a bug or a hand in the database would."""

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from intake.platform_payments import paid_catch_up
from intake.shapes import PlatformOrder
from notifications.models import ReconcileMismatch
from operations.reconciliation.findings import window_start
from operations.reconciliation.invoice_findings import unsettled_documents
from operations.reconciliation.mismatches import DUE_AFTER
from operations.reconciliation.run import reconcile_run
from operations.reviewers import reviewers_group_ensure
from orders.changes import order_paid_minor, order_pay
from orders.content import ShopOrder
from orders.currencies import amount_minor
from orders.invoicing.issue import credit_note_issue, invoice_issue
from orders.invoicing.numbering import API_SERIES
from orders.invoicing.retention import invoices_delete_expired
from orders.invoicing.settlement import to_credit
from orders.models import DeletedInvoice, Invoice, InvoiceSequence, Order, Refund
from orders.personal_data import orders_erase
from orders.refunds import RefundRequest, refund_create
from orders.selectors import order_content
from orders.services import order_create, order_record
from tests.factories import staff_user
from tests.integration.invoices.test_billable_agrees import CASES, settlement_case_order
from tests.shop_order_bodies import shop_order_body

pytestmark = pytest.mark.django_db
NOW = timedelta(0)
INVOICE_PROBLEMS = ("missing_invoice", "unsettled_documents", "invoice_numbering")


@pytest.fixture(autouse=True)
def reviewer():
    reviewers_group_ensure()
    return staff_user("rita", reviewer=True)


def _place(number: str, *, paid: bool) -> Order:
    shop_order = ShopOrder(shop_order_body(number=number))
    with transaction.atomic():
        return order_record(
            customer_email="acc@example.com",
            amount=shop_order.amount,
            currency="EUR",
            shop_order=shop_order,
            paid=paid,
        )


def _placed_without_invoice(number: str, settings, *, paid: bool = True) -> Order:
    """An order placed (paid) while invoices were off: no invoice, as a bug would leave it."""
    settings.INVOICE_ISSUED_WHEN = "off"
    order = _place(number, paid=paid)
    settings.INVOICE_ISSUED_WHEN = "paid"
    return order


def _open(problem: str) -> list[ReconcileMismatch]:
    return list(ReconcileMismatch.objects.filter(problem=problem, resolved_at__isnull=True))


def _open_invoice_problems() -> set[tuple[str, str]]:
    rows = ReconcileMismatch.objects.filter(problem__in=INVOICE_PROBLEMS, resolved_at__isnull=True)
    return set(rows.values_list("problem", "subject"))


def test_when_all_is_well_nothing_is_found_and_the_summary_says_so(settings):
    _place("W1", paid=True)  # invoiced with its placing
    later = _place("W2", paid=False)
    order_pay(order_id=later.id, api_token=None)  # invoiced at its payment
    refund_create(order_id=later.id, api_token=None, request=RefundRequest("R1", amount_minor=1250))
    short = order_create(customer_email="s@example.com", amount=Decimal("9.90"), currency="EUR")
    order_pay(order_id=short.id, api_token=None)  # no lines: no invoice, none due
    unpaid = _place("W3", paid=False)
    # when
    report = reconcile_run(stuck_after=NOW)
    # then
    assert _open_invoice_problems() == set()
    assert Invoice.objects.filter(order=unpaid).count() == 0  # not due: not paid
    assert (
        "0 order(s) without their invoice, 0 whose invoices and credit notes do not add up, "
        "0 invoice series with a gap or a number twice" in report.summary
    )


def test_a_paid_order_without_its_invoice_is_found_owned_and_closed_once_issued(settings, reviewer):
    order = _placed_without_invoice("M1", settings)
    # when
    report = reconcile_run(stuck_after=NOW)
    # then
    [row] = _open("missing_invoice")
    assert (row.order_id, row.subject, row.amount, row.currency) == (
        order.id,
        f"{order.id}:invoice",
        Decimal("34.80"),
        "EUR",
    )
    assert row.detail.startswith("Paid ")
    assert "no invoice was issued" in row.detail
    assert (row.owner, row.due_at) == (reviewer, report.started_at + DUE_AFTER)
    assert "1 order(s) without their invoice" in report.summary
    # found again: the same row
    reconcile_run(stuck_after=NOW)
    assert [r.pk for r in _open("missing_invoice")] == [row.pk]
    # when: the invoice is issued after all
    with transaction.atomic():
        invoice_issue(order, content=order_content(order) or {}, version_number=1)
    closing = reconcile_run(stuck_after=NOW)
    # then
    row.refresh_from_db()
    assert row.resolved_at == closing.started_at
    assert row.resolution == f"No longer found by reconcile report {closing.pk}."


def test_which_orders_are_due_an_invoice_follows_invoice_issued_when(settings):
    unpaid = _placed_without_invoice("C1", settings, paid=False)
    paid = _placed_without_invoice("C2", settings)
    settings.INVOICE_ISSUED_WHEN = "off"
    reconcile_run(stuck_after=NOW)
    assert _open("missing_invoice") == []
    settings.INVOICE_ISSUED_WHEN = "paid"
    reconcile_run(stuck_after=NOW)
    assert {row.order_id for row in _open("missing_invoice")} == {paid.id}
    settings.INVOICE_ISSUED_WHEN = "confirmed"  # issued at the placing, paid or not
    reconcile_run(stuck_after=NOW)
    rows = _open("missing_invoice")
    assert {row.order_id for row in rows} == {paid.id, unpaid.id}
    assert all(row.detail.startswith("Placed ") for row in rows if row.order_id == unpaid.id)


def _placed_with_a_deposit(number: str) -> Order:
    """A platform's order placed with a deposit of 10.00 of its 34.80."""
    shop_order = ShopOrder(shop_order_body(number=number))
    with transaction.atomic():
        return order_record(
            customer_email="acc@example.com",
            amount=shop_order.amount,
            currency="EUR",
            shop_order=shop_order,
            paid=True,
            paid_minor=1000,
        )


def test_under_paid_an_order_paid_in_part_is_not_due_its_invoice_yet(settings):
    # given: a platform's order placed with a deposit of 10.00 of its 34.80: not invoiced
    order = _placed_with_a_deposit("P1")
    paid_in_full = _placed_without_invoice("P2", settings)
    # when
    reconcile_run(stuck_after=NOW)
    # then: only the order paid in full is missing its invoice
    assert not Invoice.objects.filter(order=order).exists()
    assert {row.order_id for row in _open("missing_invoice")} == {paid_in_full.id}


def test_an_order_whose_deposit_is_older_than_the_window_and_balance_in_it_is_checked(settings):
    # given: a platform's order paid a deposit of 10.00 of its 34.80 long before the window
    order = _placed_with_a_deposit("P3")
    long_ago = timezone.now() - timedelta(days=30)
    Order.objects.filter(pk=order.pk).update(paid_at=long_ago, created_at=long_ago, updated_at=long_ago)
    order.refresh_from_db()
    # when: its balance comes in today while invoices are off (no invoice, as a bug would leave it)
    settings.INVOICE_ISSUED_WHEN = "off"
    with transaction.atomic():
        paid_catch_up(order, _balance_collected(order))
    settings.INVOICE_ISSUED_WHEN = "paid"
    report = reconcile_run(stuck_after=NOW)
    # then: its catch-up moved its last change, and the check finds it on the balance's day
    order.refresh_from_db()
    assert (order.paid_minor, order.paid_at) == (3480, long_ago)
    assert order.updated_at >= report.started_at - timedelta(minutes=5)
    [row] = _open("missing_invoice")
    assert row.order_id == order.id
    assert row.day == timezone.localdate(order.updated_at)
    assert row.detail.startswith("Paid in full "), row.detail


def _balance_collected(order: Order) -> PlatformOrder:
    """The platform's word that the order is paid in full now."""
    return PlatformOrder(
        platform_order_id="P3",
        updated_at=timezone.now(),
        customer_email=order.customer_email,
        locale=None,
        content=order_content(order),
        paid=True,
        paid_in_full=True,
        cancelled=False,
    )


def test_under_confirmed_an_order_placed_before_the_window_and_paid_in_it_is_due_its_invoice(settings):
    # given: placed unpaid long ago while invoices were off, paid today without one (a bug)
    old = _placed_without_invoice("C3", settings, paid=False)
    Order.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=400))
    settings.INVOICE_ISSUED_WHEN = "off"
    order_pay(order_id=old.id, api_token=None)
    # when: the check runs with invoices issued at the placing
    settings.INVOICE_ISSUED_WHEN = "confirmed"
    reconcile_run(stuck_after=NOW)
    # then: its payment was due to issue it (issue.py), and the finding says "Paid"
    [row] = _open("missing_invoice")
    assert row.order_id == old.id
    assert row.detail.startswith("Paid "), row.detail


def test_an_erased_order_paid_after_its_erasure_gets_no_invoice_and_raises_nothing(settings):
    order = _place("E1", paid=False)
    orders_erase([order.id], now=timezone.now())
    order_pay(order_id=order.id, api_token=None)
    assert not Invoice.objects.filter(order=order).exists()  # issue.py issues none
    reconcile_run(stuck_after=NOW)
    assert _open_invoice_problems() == set()


def test_a_refund_without_its_credit_note_is_found_and_closed_once_credited(settings):
    order = _place("U1", paid=True)
    invoice = Invoice.objects.get(order=order)
    # a refund recorded by hand, without the credit note its service issues
    Refund.objects.create(order=order, shop_refund_id="by-hand", amount_minor=1250, request_fingerprint="")
    assert to_credit(order, paid_minor=order_paid_minor(order)) == 1250
    # when
    report = reconcile_run(stuck_after=NOW)
    # then
    [row] = _open("unsettled_documents")
    assert (row.order_id, row.amount, row.currency) == (order.id, Decimal("12.50"), "EUR")
    assert row.detail == (
        "Its invoices and credit notes bill 34.80 EUR, it owes 22.30 EUR (its total less what refunds "
        "gave back beyond an overpayment): 12.50 EUR apart; a credit note is missing (a refund or a "
        "change without its document?)."
    )
    assert "1 whose invoices and credit notes do not add up" in report.summary
    # when: the credit note is issued
    with transaction.atomic():
        credit_note_issue(invoice, amount_minor=1250)
    reconcile_run(stuck_after=NOW)
    # then
    assert _open("unsettled_documents") == []
    assert ReconcileMismatch.objects.get(problem="unsettled_documents").resolved_by is None


def test_a_document_billing_too_little_is_found_with_a_negative_amount(settings):
    order = _place("U2", paid=True)
    Invoice.objects.filter(order=order).update(total_minor=3000)  # changed by hand
    reconcile_run(stuck_after=NOW)
    [row] = _open("unsettled_documents")
    assert row.amount == Decimal("-4.80")
    assert "billed too little" in row.detail


def _take_a_number() -> None:
    """A number taken and committed without its document (what numbering.py never does)."""
    InvoiceSequence.objects.filter(series=API_SERIES).update(next_number=F("next_number") + 1)


def test_a_gap_in_a_series_is_found(settings):
    _place("G1", paid=True)  # 1
    _take_a_number()  # 2
    _place("G2", paid=True)  # 3
    reconcile_run(stuck_after=NOW)
    [row] = _open("invoice_numbering")
    assert (row.subject, row.order_id, row.amount) == (f"invoice-series:{API_SERIES}", None, None)
    assert row.detail.startswith(f"Invoice series {API_SERIES}: no document holds number(s) 2 (given out")


def test_a_counter_past_the_highest_number_is_found_and_closed_once_set_back(settings):
    _place("G3", paid=True)
    _take_a_number()
    _take_a_number()
    reconcile_run(stuck_after=NOW)
    [row] = _open("invoice_numbering")
    assert "no document holds number(s) 2-3" in row.detail
    # when: the counter is set back (nothing holds those numbers)
    InvoiceSequence.objects.filter(series=API_SERIES).update(next_number=2)
    report = reconcile_run(stuck_after=NOW)
    # then
    row.refresh_from_db()
    assert row.resolved_at == report.started_at


def test_a_number_held_twice_and_a_counter_behind_are_found(settings):
    order = _place("T1", paid=True)
    invoice = Invoice.objects.get(order=order)
    # a number given again: the record of a deleted document holds it too
    DeletedInvoice.objects.create(
        id=uuid.uuid4(),
        order=order,
        kind="invoice",
        series=API_SERIES,
        number=invoice.number,
        number_text=invoice.number_text,
        issued_at=invoice.issued_at,
        deleted_at=timezone.now(),
    )
    InvoiceSequence.objects.filter(series=API_SERIES).update(next_number=1)  # as if never taken
    reconcile_run(stuck_after=NOW)
    [row] = _open("invoice_numbering")
    assert "number(s) 1 held by two documents" in row.detail
    assert "its counter gives out 1 next, yet 1 is already held" in row.detail


def test_documents_the_retention_job_deleted_raise_nothing(settings):
    first, deleted, last = (_place(f"D{n}", paid=True) for n in range(3))  # numbers 1, 2, 3
    long_ago = timezone.now().replace(year=timezone.now().year - 11)
    Invoice.objects.filter(order=deleted).update(issued_at=long_ago)
    assert invoices_delete_expired(now=timezone.now(), batch_size=100, max_batches=10) == 1
    assert DeletedInvoice.objects.get(order=deleted).number == 2
    # its order was paid in the window; a refund since leaves its documents unknown
    Refund.objects.create(order=deleted, shop_refund_id="late", amount_minor=100, request_fingerprint="")
    # when
    reconcile_run(stuck_after=NOW)
    # then: no invoice missing, nothing unsettled, and number 2 is no gap
    assert _open_invoice_problems() == set()
    assert {first.id, last.id} <= set(Invoice.objects.values_list("order_id", flat=True))


def test_the_admin_shows_them_in_plain_words(settings, admin_client):
    _place("A0", paid=True)
    order = _placed_without_invoice("A1", settings)
    _take_a_number()
    reconcile_run(stuck_after=NOW)
    page = admin_client.get(reverse("admin:notifications_reconcilemismatch_changelist")).content.decode()
    assert "order without the invoice it should have" in page
    assert "an invoice series with a gap or a number twice" in page
    series_list = reverse("admin:orders_invoice_changelist")
    assert f'invoice series <a href="{series_list}?series={API_SERIES}">{API_SERIES}</a>' in page
    assert str(order.id)[:8] in page


@pytest.mark.parametrize(
    ("amount", "currency", "paid_minor", "refunds", "status"), CASES.values(), ids=CASES.keys()
)
def test_the_reconciliation_and_settlement_agree_on_what_is_to_credit(
    amount, currency, paid_minor, refunds, status
):
    # given: the settlement's own cases (tests/integration/invoices/test_billable_agrees.py), each
    # order billed 50.00 (or 500 JPY, 5.000 KWD) by one invoice
    order = settlement_case_order(amount, currency, paid_minor, refunds, status)
    billed = {"EUR": 5000, "JPY": 500, "KWD": 5000}[currency]
    Invoice.objects.create(
        order=order,
        kind="invoice",
        series="agree",
        number=1,
        number_text="INV-1",
        issued_at=timezone.now(),
        currency=currency,
        total_minor=billed,
        locale="en",
        data={},
    )
    # when
    found = unsettled_documents(since=window_start(timezone.now(), 7)).findings
    # then: found exactly when to_credit is not 0, by its amount
    expected = to_credit(order, paid_minor=order_paid_minor(order))
    assert [amount_minor(f.amount or Decimal(0), currency) for f in found] == ([expected] if expected else [])
