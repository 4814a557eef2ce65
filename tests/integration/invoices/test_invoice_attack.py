"""Attacks on the invoices' issue, arithmetic, numbering and PDF (a security review of the
feature). Each defect found is an xfail(strict=True) naming it, so the run stays green while the
defect stands and turns red the day it is fixed (the mark is then removed); the others pin
what held under attack."""

import hashlib
import threading
import time
from collections.abc import Callable
from functools import partial

import pytest
from django.db import connection, transaction

from notifications.documents import pdf as pdf_module
from notifications.documents.pdf import invoice_pdf
from orders.changes import OrderChangeConflict, order_cancel, order_pay
from orders.invoicing.issue import credit_note_issue
from orders.models import Invoice, Order
from privacy.erasure import customer_erase
from privacy.models import Erasure
from tests.at_once import at_once
from tests.integration.invoices.conftest import pdf_text

pytestmark = pytest.mark.django_db(transaction=True)


def _line(sku: str, name: str, quantity: int, unit_price: int, rate: str) -> dict:
    return {
        "sku": sku,
        "name": name,
        "quantity": quantity,
        "unit_price": unit_price,
        "total": quantity * unit_price,
        "tax_rate": rate,
    }


# --- VAT arithmetic on hostile content -------------------------------------------------------


def test_free_lines_with_paid_shipping_are_invoiced_at_the_order_s_total(place_order):
    # a free sample with paid delivery: content_totals_check takes it (total > 0)
    lines = [_line("SAMPLE", "Free sample", 1, 0, "0.19")]
    order = place_order(paid=True, lines=lines, discounts=[], tax_total=None, total=490)
    invoice = Invoice.objects.get(order=order)
    assert sum(row["gross"] for row in invoice.data["rates"]) == 490
    assert invoice.total_minor == 490


def test_rates_0_and_1_huge_amounts_and_a_discount_over_a_rate_s_lines_add_up(place_order):
    # rate 0 and rate 1 (100 %), amounts at the API's limits, a discount larger than the
    # 0-rate lines, KWD (three decimals): every rate's gross >= 0 and the sum is the total
    lines = [
        _line("BIG", "Big", 100_000, 99_999, "1"),  # the most a line may hold (MoneyRefused above)
        _line("ZERO", "Zero-rated", 1, 3, "0"),
        _line("FREE", "Free", 3, 0, "0.07"),
    ]
    total = 100_000 * 99_999 + 3 + 777 - 500
    order = place_order(
        paid=True,
        currency="KWD",
        lines=lines,
        shipping={"method": "x", "price": 777},
        discounts=[{"code": "D", "amount": 500}],
        tax_total=None,
        total=total,
    )
    invoice = Invoice.objects.get(order=order)
    rates = {row["rate"]: row for row in invoice.data["rates"]}
    assert sum(row["gross"] for row in rates.values()) == total == invoice.total_minor
    assert all(row["gross"] >= 0 and row["net"] >= 0 and row["vat"] >= 0 for row in rates.values())
    assert rates["1"]["vat"] == rates["1"]["gross"] - rates["1"]["net"]
    assert abs(rates["1"]["net"] * 2 - rates["1"]["gross"]) <= 1
    assert rates["0"]["vat"] == 0
    text = pdf_text(invoice_pdf(invoice))
    assert "100 %" in text
    assert "KWD" in text


@pytest.mark.parametrize("amount", [0, -100, 4991], ids=["zero", "negative", "over the invoice"])
def test_a_credit_note_of_an_impossible_amount_is_refused(place_order, amount):
    invoice = Invoice.objects.get(order=place_order(paid=True))  # 49.90
    with pytest.raises(ValueError, match=r"(?i)amount"), transaction.atomic():
        credit_note_issue(invoice, amount_minor=amount)


# --- numbering under concurrency --------------------------------------------------------------


def _in_thread(call: Callable[[], object]) -> str:
    try:
        call()
        return "done"
    except OrderChangeConflict:
        return "conflict"
    finally:
        connection.close()


def test_two_payments_of_one_order_at_once_issue_one_invoice(place_order):
    order = place_order(paid=False)
    pay = partial(order_pay, order_id=order.id, api_token=None)
    outcomes = at_once([partial(_in_thread, pay) for _ in range(4)])
    assert outcomes == ["done"] * 4  # the lock on the order: one pays, the others see it paid
    [invoice] = Invoice.objects.filter(order=order)
    assert invoice.number == 1


def test_payment_and_cancellation_at_once_leave_a_consistent_invoice(place_order):
    for n in range(4):
        order = place_order(paid=False, number=f"PC{n}")
        pay = partial(order_pay, order_id=order.id, api_token=None)
        cancel = partial(order_cancel, order_id=order.id, api_token=None)
        at_once([partial(_in_thread, pay), partial(_in_thread, cancel)])
        order.refresh_from_db()
        invoiced = Invoice.objects.filter(order=order).exists()
        # paid then cancelled: invoiced (a credit note would follow a refund); cancelled
        # first: never paid, no invoice
        assert invoiced == (order.paid_at is not None), (order.status, invoiced)
    numbers = sorted(Invoice.objects.values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))


def test_orders_of_one_shop_paid_at_once_number_without_gap(place_order):
    from shops.models import Shop

    shop = Shop.objects.create(slug="tea", name="Tea", platform="shopify", domain="tea.myshopify.com")
    orders = [place_order(paid=False, number=f"S{n}") for n in range(8)]
    Order.objects.filter(pk__in=[o.pk for o in orders]).update(shop=shop)
    at_once([partial(_in_thread, partial(order_pay, order_id=o.id, api_token=None)) for o in orders])
    numbers = sorted(Invoice.objects.filter(series=f"shop-{shop.pk}").values_list("number", flat=True))
    assert numbers == list(range(1, 9))


# --- the payment of an erased order ----------------------------------------------------------


def test_an_unpaid_order_erased_at_its_customer_s_request_can_still_be_paid(place_order):
    order = place_order(paid=False)
    customer_erase(address=order.customer_email, via=Erasure.Via.COMMAND, actor=None, actor_name="dpo")
    order_pay(order_id=order.id, api_token=None)
    order.refresh_from_db()
    assert order.status == Order.Status.PAID


# --- the PDF: hostile text, size and time, the race of two renders -----------------------------

HOSTILE = (
    "\u202eevil.exe\u202c "  # right-to-left override
    "a\u200bb\u200dc\ufeff "  # zero-width characters
    "\x07\x1b[31m "  # control characters (a platform's webhook passes them, the API would not)
    "שלום عربي "
    "</td></tr></table><style>*{display:none}</style><script>alert(1)</script>"
)


def _big_order(place_order, *, name: Callable[[int], str], number: str = "BIG") -> Order:
    lines = [_line(f"SKU-{n}", name(n), 100, 999_999, ("0.19", "0.07", "0", "1")[n % 4]) for n in range(250)]
    total = sum(line["total"] for line in lines)
    return place_order(
        paid=True, number=number, lines=lines, discounts=[], shipping=None, tax_total=None, total=total
    )


def test_a_pdf_of_250_hostile_lines_renders_every_line_and_stays_small(place_order, capsys):
    def name(n: int) -> str:
        return (f"{n:03d} {HOSTILE} " + "long product name " * 20)[:200]

    invoice = Invoice.objects.get(order=_big_order(place_order, name=name))
    started = time.monotonic()
    pdf = invoice_pdf(invoice)
    seconds = time.monotonic() - started
    with capsys.disabled():
        print(f"\n[invoice attack] 250 hostile lines of 200 characters: {len(pdf):,} bytes, {seconds:.2f} s")
    assert len(pdf) < 2_000_000
    assert seconds < 60
    text = pdf_text(pdf)
    assert "<script>alert(1)</script>" in text.replace("\n", "")  # text, not markup
    for n in (0, 124, 249):
        assert f"SKU-{n})" in text, n


def test_a_name_without_a_break_leaves_every_amount_on_the_page(place_order):
    lines = [_line("W", "W" * 200, 1, 4990, "0.19")]
    order = place_order(paid=True, lines=lines, discounts=[], shipping=None, tax_total=None, total=4990)
    text = pdf_text(invoice_pdf(Invoice.objects.get(order=order)))
    # the line's amount (€49.90) appears in its own row, not only in the totals: twice at least
    assert text.count("€49.90") >= 2, text
    assert text.count("€7.97") >= 2, text  # its VAT, in the line and in the totals


def test_two_renders_at_once_store_one_pdf_that_both_return(place_order, capsys, monkeypatch):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    renders = []
    real = pdf_module.invoice_pdf_render
    lock = threading.Lock()

    def counted(document: Invoice) -> pdf_module.RenderedDocument:
        with lock:
            renders.append(1)
        return real(document)

    monkeypatch.setattr(pdf_module, "invoice_pdf_render", counted)

    def read() -> bytes:
        try:
            return invoice_pdf(Invoice.objects.get(pk=invoice.pk))
        finally:
            connection.close()

    results = at_once([read for _ in range(6)])
    stored = Invoice.objects.get(pk=invoice.pk)
    assert {hashlib.sha256(r).hexdigest() for r in results} == {stored.pdf_sha256}
    assert len(renders) == 1  # the others waited on its row and read what it stored
    with capsys.disabled():
        print(f"\n[invoice attack] 6 concurrent first reads: {len(renders)} renders for one stored PDF")


def test_the_invoice_s_vat_is_the_tax_the_shop_charged(place_order):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    assert invoice.data["vat_total"] == 594
