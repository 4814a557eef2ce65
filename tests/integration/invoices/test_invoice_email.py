"""The invoice rides on the confirmation through a real worker, RabbitMQ and the mail simulator:
the provider receives the PDF the order's invoice stores, byte for byte (sha256), named by its
number; the email's snapshot names it, so a resend under the same key attaches the same bytes;
an order placed unpaid is confirmed without one; a stored PDF that no longer matches its email's
snapshot is never sent in its place."""

import hashlib

import pytest
import requests

from notifications.content.snapshot import snapshot_outbound
from notifications.documents.attached import AttachmentChanged
from notifications.models import Notification
from orders.changes import order_pay
from orders.models import Invoice
from tests.integration.invoices.conftest import pdf_text
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _confirmation_sent(order) -> Notification:
    wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="sent").exists(),
        timeout=40,
        message="the confirmation sent",
    )
    return Notification.objects.get(order=order, kind="order_confirmation")


def test_a_paid_order_s_confirmation_carries_its_invoice_byte_for_byte(place_order, mailsim, start_worker):
    order = place_order(paid=True)
    start_worker()
    confirmation = _confirmation_sent(order)
    invoice = Invoice.objects.get(order=order)
    [message] = mailsim.messages()
    [listed] = message["attachments"]
    assert listed["filename"] == f"{invoice.number_text}.pdf"
    assert listed["content_type"] == "application/pdf"
    assert listed["sha256"] == invoice.pdf_sha256 == hashlib.sha256(bytes(invoice.pdf or b"")).hexdigest()
    received = requests.get(f"{mailsim.url}{listed['url']}", timeout=10).content
    assert f"Invoice {invoice.number_text}" in pdf_text(received)
    # the snapshot names it: a resend under the same key attaches the same bytes
    assert confirmation.email_attachments == [
        {
            "invoice": str(invoice.pk),
            "filename": listed["filename"],
            "sha256": listed["sha256"],
            "size": listed["size"],
        }
    ]
    [attachment] = snapshot_outbound(confirmation, to=order.customer_email, event_id="x").attachments
    assert attachment.content == received


def test_an_order_placed_unpaid_is_confirmed_without_an_invoice(place_order, mailsim, start_worker):
    order = place_order(paid=False)
    start_worker()
    confirmation = _confirmation_sent(order)
    assert confirmation.email_attachments == []
    assert mailsim.messages()[0]["attachments"] == []


def test_a_stored_pdf_that_no_longer_matches_the_snapshot_is_never_sent_in_its_place(
    place_order, mailsim, start_worker
):
    order = place_order(paid=True)
    start_worker()
    confirmation = _confirmation_sent(order)
    Invoice.objects.filter(order=order).update(pdf=b"%PDF-1.4 something else")
    with pytest.raises(AttachmentChanged, match="no longer the file this email was rendered with"):
        snapshot_outbound(confirmation, to=order.customer_email, event_id="x")


def test_an_invoice_issued_at_a_later_payment_goes_out_in_an_email_of_its_own(
    place_order, mailsim, start_worker
):
    order = place_order(paid=False)
    order_pay(order_id=order.id, api_token=None)
    invoice = Invoice.objects.get(order=order)
    assert (invoice.email_kind, invoice.email_subject_id) == ("order_invoice", invoice.pk)
    start_worker()
    wait_until(
        lambda: Notification.objects.filter(order=order, status="sent").count() == 2,
        timeout=40,
        message="the confirmation and the invoice's email sent",
    )
    email = Notification.objects.get(order=order, kind="order_invoice", subject_id=invoice.pk)
    assert f"Your invoice {invoice.number_text} is attached" in email.email_text
    confirmation = Notification.objects.get(order=order, kind="order_confirmation")
    assert confirmation.sent_at is not None
    assert email.sent_at is not None
    assert confirmation.sent_at <= email.sent_at  # after the confirmation
    assert confirmation.email_attachments == []
    [message] = [m for m in mailsim.messages() if m["subject"] == email.email_subject]
    [listed] = message["attachments"]
    invoice.refresh_from_db()  # rendered by the worker
    assert (listed["filename"], listed["sha256"]) == (f"{invoice.number_text}.pdf", invoice.pdf_sha256)
