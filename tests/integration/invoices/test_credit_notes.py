"""Each refund of an invoiced order gets a credit note: its own number from the same unbroken
series, naming the invoice it corrects, its amount shared among that invoice's VAT rates, every
amount negative; carried by the refund's email (through a real worker to the simulator), or by
the cancellation's that tells the refund. A refund of an order without an invoice gets none. A
cancellation credits what never came in (an invoice of the order's placing never paid): the
documents of a cancelled order bill what it was paid."""

import pytest
import requests

from notifications.documents.pdf import invoice_pdf
from notifications.models import Notification
from orders.changes import order_cancel
from orders.models import Invoice
from orders.refunds import RefundRequest, order_cancel_with_refund, refund_create
from tests.integration.invoices.conftest import pdf_text
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def test_a_refund_gets_a_credit_note_naming_the_invoice_with_negative_amounts_per_rate(place_order):
    order = place_order(paid=True)
    invoice = Invoice.objects.get(order=order, kind="invoice")
    refund = refund_create(
        order_id=order.id,
        api_token=None,
        request=RefundRequest(
            shop_refund_id="r1",
            amount_minor=1490,
            lines=[{"sku": "MUG-BLUE", "quantity": 1}],
            reason="Chipped",
        ),
    ).refund
    note = Invoice.objects.get(order=order, kind="credit_note")
    assert (note.number, note.number_text, note.corrects_id, note.refund_id) == (
        2,
        "CN-000002",
        invoice.pk,
        refund.pk,
    )
    assert (note.email_kind, note.email_subject_id) == ("order_refund", refund.pk)
    assert note.total_minor == -1490
    assert sum(row["gross"] for row in note.data["rates"]) == -1490
    assert all(row["gross"] < 0 and row["net"] <= 0 and row["vat"] <= 0 for row in note.data["rates"])
    # shared in proportion to the invoice's rates: more of it at 19 % than at 7 %
    invoiced = {row["rate"]: row["gross"] for row in invoice.data["rates"]}
    credited = {row["rate"]: -row["gross"] for row in note.data["rates"]}
    assert credited["0.19"] / 1490 == pytest.approx(invoiced["0.19"] / invoice.total_minor, abs=0.01)
    text = pdf_text(invoice_pdf(note))
    for element in ("Credit note CN-000002", "INV-000001", "Chipped", "Blue mug", "-€14.90", "EUR"):
        assert element in text, (element, text)


def test_an_order_without_an_invoice_gets_no_credit_note(place_order, settings):
    settings.INVOICE_ISSUED_WHEN = "off"
    order = place_order(paid=True)
    refund_create(
        order_id=order.id, api_token=None, request=RefundRequest(shop_refund_id="r1", amount_minor=100)
    )
    assert not Invoice.objects.filter(order=order).exists()


def test_the_refund_email_carries_the_credit_note_through_a_worker(place_order, mailsim, start_worker):
    order = place_order(paid=True)
    refund = refund_create(
        order_id=order.id, api_token=None, request=RefundRequest(shop_refund_id="r1", amount_minor=500)
    ).refund
    start_worker()
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").count() == 2,
        timeout=40,
        message="the confirmation and the refund's email sent",
    )
    note = Invoice.objects.get(order=order, kind="credit_note")
    refund_email = Notification.objects.get(order=order, kind="order_refund", subject_id=refund.pk)
    [entry] = refund_email.email_attachments
    assert (entry["filename"], entry["sha256"]) == ("CN-000002.pdf", note.pdf_sha256)
    # rendered before the claim that locked the order, not inside it
    assert note.pdf_rendered_at is not None
    assert refund_email.first_attempt_at is not None
    assert note.pdf_rendered_at < refund_email.first_attempt_at
    by_subject = {message["subject"]: message for message in mailsim.messages()}
    [message] = [m for subject, m in by_subject.items() if subject == refund_email.email_subject]
    [listed] = message["attachments"]
    received = requests.get(f"{mailsim.url}{listed['url']}", timeout=10).content
    assert "Credit note CN-000002" in pdf_text(received)


def test_a_refund_told_by_the_cancellation_rides_on_the_cancellation_email(place_order):
    order = place_order(paid=True)
    order_cancel_with_refund(
        order_id=order.id, api_token=None, refund=RefundRequest(shop_refund_id="all", amount_minor=4990)
    )
    note = Invoice.objects.get(order=order, kind="credit_note")
    assert (note.email_kind, note.email_subject_id, note.total_minor) == ("order_cancellation", None, -4990)
    assert (
        sum(row["vat"] for row in note.data["rates"])
        == -Invoice.objects.get(order=order, kind="invoice").data["vat_total"]
    )


def test_under_confirmed_the_cancellation_of_an_order_never_paid_credits_its_invoice(place_order, settings):
    # given: invoiced at its placing, never paid
    settings.INVOICE_ISSUED_WHEN = "confirmed"
    order = place_order(paid=False)
    # when: cancelled (nothing to refund: nothing came in)
    order_cancel(order_id=order.id, api_token=None)
    # then: its invoice credited in full, on the cancellation's email: it bills nothing
    note = Invoice.objects.get(order=order, kind="credit_note")
    assert (note.email_kind, note.email_subject_id, note.total_minor) == ("order_cancellation", None, -4990)
    assert note.corrects == Invoice.objects.get(order=order, kind="invoice")


def test_the_cancellation_of_an_order_paid_in_full_credits_nothing_before_its_refund(place_order):
    # given: paid in full, invoiced
    order = place_order(paid=True)
    # when: cancelled, its refund not made yet
    order_cancel(order_id=order.id, api_token=None)
    # then: no credit note: the money came in, and its refund is credited when it is made
    assert not Invoice.objects.filter(order=order, kind="credit_note").exists()
