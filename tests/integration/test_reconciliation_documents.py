"""The reconciliation counts the invoices and credit notes issued per day (of issue), kind and
currency, with the sum of their totals (a credit note's negative), in its report's findings,
its summary and the command's print. Real PostgreSQL; the documents are issued by the product's
own services (a payment, a refund)."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from operations.reconciliation.run import reconcile_run
from orders.changes import order_pay
from orders.content import ShopOrder
from orders.models import Invoice, Order
from orders.refunds import RefundRequest, refund_create
from orders.services import order_create
from tests.shop_order_bodies import shop_order_body

pytestmark = pytest.mark.django_db


def _paid(number: str, currency: str = "EUR") -> Order:
    shop_order = ShopOrder(shop_order_body(number=number, currency=currency))
    order = order_create(
        customer_email="docs@example.com", amount=shop_order.amount, currency=currency, shop_order=shop_order
    )
    order_pay(order_id=order.id, api_token=None)
    return order


@pytest.fixture
def documents(django_capture_on_commit_callbacks):
    """Two EUR orders paid (3480 each), one refunded 1250; a USD order paid; and an EUR invoice
    issued before the ledger's days (not counted)."""
    with django_capture_on_commit_callbacks(execute=False):
        refunded = _paid("D1")
        _paid("D2")
        _paid("D3", currency="USD")
        old = _paid("D4")
        refund_create(order_id=refunded.id, api_token=None, request=RefundRequest("R1", amount_minor=1250))
    Invoice.objects.filter(order=old).update(issued_at=timezone.now() - timedelta(days=30))


def _row(rows, kind, currency):
    [row] = [row for row in rows if row["kind"] == kind and row["currency"] == currency]
    return row


def test_invoices_and_credit_notes_are_counted_and_summed_per_day_kind_and_currency(documents):
    report = reconcile_run(stuck_after=timedelta(0))
    rows = report.findings["documents"]
    today = timezone.localdate().isoformat()
    assert {row["day"] for row in rows} == {today}
    eur = _row(rows, "invoice", "EUR")
    assert (eur["count"], eur["total_minor"], eur["total"]) == (2, 6960, "69.60")
    usd = _row(rows, "invoice", "USD")
    assert (usd["count"], usd["total_minor"], usd["total"]) == (1, 3480, "34.80")
    notes = _row(rows, "credit_note", "EUR")
    assert (notes["count"], notes["total_minor"], notes["total"]) == (1, -1250, "-12.50")
    assert len(rows) == 3  # no USD credit note, and the old invoice is not in the ledger's days
    assert "3 invoice(s), 1 credit note(s) issued" in report.summary


def test_the_command_prints_them_and_its_json_has_them(documents):
    out = StringIO()
    call_command("reconcile", "--stuck-after", "0m", stdout=out)
    text = out.getvalue()
    assert "DOCUMENT" in text
    assert f"{timezone.localdate().isoformat()}  credit_note         EUR" in text
    assert "-12.50" in text
    out = StringIO()
    call_command("reconcile", "--stuck-after", "0m", "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert _row(result["findings"]["documents"], "invoice", "USD")["count"] == 1


def test_without_documents_the_summary_says_none_were_issued():
    report = reconcile_run(stuck_after=timedelta(0))
    assert report.findings["documents"] == []
    assert "0 invoice(s), 0 credit note(s) issued" in report.summary
