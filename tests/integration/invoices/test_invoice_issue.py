"""An invoice is issued when an order is paid, with its number from its series' unbroken
sequence, and its PDF names every element an EU invoice must (Directive 2006/112/EC art. 226):
the date of issue, the number, the seller's name, address and VAT number, the customer's name
and address, each line with its quantity, VAT rate and amount, the totals per rate, the
currency. Read back with pdftotext, in English and in Russian."""

import re

import pytest

from notifications.documents.pdf import invoice_pdf
from orders.changes import order_pay
from orders.invoicing.numbering import API_SERIES
from orders.models import Invoice
from tests.integration.invoices.conftest import pdf_text

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_order_placed_paid_gets_its_invoice_with_every_legal_element_in_its_pdf(place_order, settings):
    settings.SHOP_VAT_NUMBER = "DE999888777"
    order = place_order(paid=True)
    [invoice] = Invoice.objects.filter(order=order)
    assert (invoice.kind, invoice.series, invoice.number, invoice.number_text) == (
        "invoice",
        API_SERIES,
        1,
        "INV-000001",
    )
    assert invoice.email_kind == "order_confirmation"  # issued with the order: its confirmation carries it
    # the sample: 2 x 14.90 at 19 %, 1 x 18.10 at 7 %, shipping 4.90, a discount of 2.90: 49.90
    assert invoice.total_minor == 4990
    rates = {row["rate"]: row for row in invoice.data["rates"]}
    assert sum(row["gross"] for row in rates.values()) == 4990
    assert set(rates) == {"0.19", "0.07"}
    text = pdf_text(invoice_pdf(invoice))
    for element in (
        "Invoice INV-000001",
        "Date of issue",
        invoice.data["issued_on"],
        settings.SHOP_LEGAL_NAME,
        settings.SHOP_LEGAL_ADDRESS,
        "VAT number: DE999888777",
        "Ada Lovelace",
        "Hauptstrasse 12",
        "10115 Berlin",
        "Blue mug (MUG-BLUE)",
        "Earl Grey, 250 g (TEA-EARL)",
        "€49.90",
        "EUR",
        "Order",
        "1001",
    ):
        assert element in text, (element, text)
    # each rate, and the totals per rate: its net, VAT and gross, as the data says
    assert re.search(r"19 ?%", text)
    assert re.search(r"7 ?%", text)
    for row in rates.values():
        assert f"€{row['vat'] / 100:.2f}" in text, (row, text)
        assert f"€{row['net'] / 100:.2f}" in text, (row, text)


def test_the_pdf_is_rendered_once_and_kept_byte_for_byte(place_order):
    invoice = Invoice.objects.get(order=place_order(paid=True))
    first = invoice_pdf(invoice)
    again = invoice_pdf(Invoice.objects.get(pk=invoice.pk))
    assert first == again
    stored = Invoice.objects.get(pk=invoice.pk)
    assert bytes(stored.pdf or b"") == first
    assert stored.pdf_sha256
    assert stored.pdf_rendered_at is not None


def test_a_russian_customer_s_invoice_is_in_russian(place_order):
    invoice = Invoice.objects.get(order=place_order(paid=True, locale="ru"))
    text = pdf_text(invoice_pdf(invoice))
    assert "Счёт INV-000001" in text, text
    assert "Ставка НДС" in text, text
    assert "НДС" in text, text
    assert "49,90" in text, text


def test_an_order_placed_unpaid_gets_its_invoice_at_its_payment_and_only_once(place_order):
    order = place_order(paid=False)
    assert not Invoice.objects.filter(order=order).exists()
    order_pay(order_id=order.id, api_token=None)
    order_pay(order_id=order.id, api_token=None)  # a retry changes nothing
    [invoice] = Invoice.objects.filter(order=order)
    # an email of its own carries it, about it (after the confirmation)
    assert (invoice.email_kind, invoice.email_subject_id) == ("order_invoice", invoice.pk)


def test_an_order_placed_paid_in_part_waits_for_its_payment_in_full_to_be_invoiced(place_order):
    # a deposit of 10.00 of the 49.90: the invoice would bill the whole order as paid
    order = place_order(paid=True, paid_minor=1000)
    assert (order.status, order.paid_minor) == ("paid", 1000)
    assert not Invoice.objects.filter(order=order).exists()


def test_issued_when_confirmed_an_order_placed_paid_in_part_gets_its_invoice_with_its_confirmation(
    place_order, settings
):
    settings.INVOICE_ISSUED_WHEN = "confirmed"
    [invoice] = Invoice.objects.filter(order=place_order(paid=True, paid_minor=1000))
    assert (invoice.email_kind, invoice.total_minor) == ("order_confirmation", 4990)


def test_with_invoices_off_none_is_issued(place_order, settings):
    settings.INVOICE_ISSUED_WHEN = "off"
    assert not Invoice.objects.filter(order=place_order(paid=True)).exists()


def test_issued_when_confirmed_an_unpaid_order_gets_its_invoice_with_its_confirmation(place_order, settings):
    settings.INVOICE_ISSUED_WHEN = "confirmed"
    [invoice] = Invoice.objects.filter(order=place_order(paid=False))
    assert invoice.email_kind == "order_confirmation"


def test_after_a_switch_to_confirmed_an_order_placed_unpaid_before_is_invoiced_when_paid(
    place_order, settings
):
    # given: placed unpaid while invoices were issued at the payment: its placing issued none
    order = place_order(paid=False)
    assert not Invoice.objects.filter(order=order).exists()
    # when: the shop switches to invoices at the placing, then the order is paid
    settings.INVOICE_ISSUED_WHEN = "confirmed"
    order_pay(order_id=order.id, api_token=None)
    # then: its payment issues it (no placing will again), in an email of its own
    [invoice] = Invoice.objects.filter(order=order)
    assert (invoice.email_kind, invoice.email_subject_id) == ("order_invoice", invoice.pk)


def test_under_confirmed_paying_an_order_invoiced_at_its_placing_issues_no_second(place_order, settings):
    settings.INVOICE_ISSUED_WHEN = "confirmed"
    order = place_order(paid=False)
    order_pay(order_id=order.id, api_token=None)
    assert Invoice.objects.filter(order=order).count() == 1


def test_markup_in_what_the_shop_sent_is_text_and_nothing_is_fetched(place_order):
    # a product name and a customer name with markup that would fetch a file and an address
    lines = [
        {
            "sku": "X-1",
            "name": '<img src="file:///etc/passwd"><link rel=stylesheet href="http://127.0.0.1:9/x.css">',
            "quantity": 1,
            "unit_price": 4990,
            "total": 4990,
            "tax_rate": "0.19",
        }
    ]
    order = place_order(
        paid=True, lines=lines, shipping=None, discounts=[], customer_name="<b>Ada</b>", total=4990
    )
    text = pdf_text(invoice_pdf(Invoice.objects.get(order=order)))
    assert '<img src="file:///etc/passwd">' in text.replace("\n", "")  # shown as the shop wrote it
    assert "root:" not in text
