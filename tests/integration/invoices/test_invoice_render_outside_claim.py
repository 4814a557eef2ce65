"""A document's PDF is never laid out while a claim holds its order's row: the claim puts an
email whose document has no PDF aside (DocumentsFirst), the handler renders the PDF with no row
locked, then claims it again. A layout with an admin's template takes up to its child's 20 s,
and every change of the order (its payment, a refund, a cancellation) would wait behind it.

The handler runs here in the test's process against the mail simulator: what is watched is the
order's row during the layout, seen from a second connection."""

import uuid

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from messaging.errors import TransientError
from messaging.registry import event_type_get
from notifications.delivery.attempts import Claim
from notifications.delivery.claims import ClaimRequest, DocumentsFirst, notification_claims
from notifications.delivery.handler import email_events_handle
from notifications.documents import pdf as pdf_module
from notifications.documents import template as template_module
from notifications.documents.attached import documents_render_outside_claim
from notifications.models import DeliveryAttempt, Notification
from notifications.providers.catalogue import mail_provider
from orders.events import ORDER_CREATED
from orders.models import Invoice, Order
from tests.integration.invoices.template_drafts import (
    ONLY_THE_SAMPLES,
    SHIPPED_HTML,
    draft_published,
    shipped_with,
    stored_version,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def _confirmation_request(order: Order) -> ClaimRequest:
    return ClaimRequest(order.id, event_type_get(ORDER_CREATED), uuid.uuid4(), worker="w")


def _delivery_of(order: Order) -> tuple[Envelope, Delivery]:
    envelope = Envelope(uuid.uuid4(), event_type_get(ORDER_CREATED), 1, order.id, timezone.now())
    return envelope, Delivery(worker="test", retries=0, max_retries=5)


@pytest.fixture
def row_seen_during_layout(monkeypatch):
    """The order rows' lock state, as a second connection saw them while each PDF was laid out:
    "free" or "locked". The layout itself runs as always."""
    seen: list[str] = []
    layout = pdf_module.document_pdf
    database = connection.settings_dict
    dsn = {key: database[name] for key, name in (("dbname", "NAME"), ("host", "HOST"), ("port", "PORT"))}
    dsn |= {"user": database["USER"], "password": database["PASSWORD"]}

    def watched(source, invoice):
        with psycopg.connect(**dsn) as other:
            try:
                table = Order._meta.db_table
                other.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE NOWAIT", [invoice.order_id])
                seen.append("free")
            except psycopg.errors.LockNotAvailable:
                seen.append("locked")
        return layout(source, invoice)

    monkeypatch.setattr(pdf_module, "document_pdf", watched)
    return seen


def test_a_confirmation_carrying_an_unrendered_invoice_is_put_aside_with_nothing_written(place_order):
    # given: an order placed paid, its invoice riding on the confirmation, no PDF yet
    order = place_order(paid=True)
    invoice = Invoice.objects.get(order=order)
    assert invoice.pdf_sha256 == ""
    # when: its confirmation is claimed
    [decision] = notification_claims([_confirmation_request(order)], provider=mail_provider())
    # then: put aside for its documents; no lease, no attempt, no PDF rendered under the lock
    assert isinstance(decision, DocumentsFirst)
    assert decision == DocumentsFirst(order.id, Notification.Kind.ORDER_CONFIRMATION, None)
    confirmation = Notification.objects.get(order=order, kind=Notification.Kind.ORDER_CONFIRMATION)
    assert (confirmation.status, confirmation.email_content_hash) == (Notification.Status.PENDING, "")
    assert not DeliveryAttempt.objects.filter(notification=confirmation).exists()
    assert Invoice.objects.get(pk=invoice.pk).pdf_sha256 == ""
    # and once rendered outside the claim, the claim takes it with the stored PDF
    assert documents_render_outside_claim(decision) == ""
    request = _confirmation_request(order)
    [claim] = notification_claims([request], provider=mail_provider())
    assert isinstance(claim, Claim), claim
    [entry] = claim.notification.email_attachments
    assert entry["sha256"] == Invoice.objects.get(pk=invoice.pk).pdf_sha256 != ""


def test_a_plain_confirmation_is_claimed_at_once(place_order, settings):
    settings.INVOICE_ISSUED_WHEN = "off"
    order = place_order(paid=True)
    [decision] = notification_claims([_confirmation_request(order)], provider=mail_provider())
    assert isinstance(decision, Claim), decision
    assert decision.notification.email_attachments == []


def test_the_confirmation_s_invoice_is_laid_out_with_its_order_unlocked_and_sent_once(
    place_order, mailsim, row_seen_during_layout
):
    # given: an order placed paid, its confirmation carrying its invoice
    order = place_order(paid=True)
    # when: the worker's handler takes the confirmation's delivery
    [result] = email_events_handle([_delivery_of(order)])
    # then: the PDF was laid out once, while nobody held the order's row, then sent with it
    assert result == "sent", result
    assert row_seen_during_layout == ["free"]
    confirmation = Notification.objects.get(order=order, kind=Notification.Kind.ORDER_CONFIRMATION)
    invoice = Invoice.objects.get(order=order)
    assert invoice.pdf_rendered_at is not None
    assert confirmation.first_attempt_at is not None
    assert invoice.pdf_rendered_at < confirmation.first_attempt_at
    assert DeliveryAttempt.objects.filter(notification=confirmation).count() == 1
    [message] = mailsim.messages()
    assert [attachment["filename"] for attachment in message["attachments"]] == [f"{invoice.number_text}.pdf"]


def test_a_batch_sends_its_plain_emails_and_then_the_ones_whose_documents_it_rendered(
    place_order, mailsim, row_seen_during_layout, settings
):
    # given: two orders without an invoice and one with its invoice to render, in one batch
    settings.INVOICE_ISSUED_WHEN = "off"
    plain = [place_order(paid=True, number=f"200{n}") for n in range(2)]
    settings.INVOICE_ISSUED_WHEN = "paid"
    invoiced = place_order(paid=True, number="2009")
    # when: the three deliveries are handled together
    results = email_events_handle([_delivery_of(order) for order in (*plain, invoiced)])
    # then: all three sent once, the PDF laid out with no row locked
    assert results == ["sent", "sent", "sent"], results
    assert row_seen_during_layout == ["free"]
    assert len(mailsim.messages()) == 3
    assert DeliveryAttempt.objects.count() == 3


def test_a_document_that_does_not_render_fails_its_email_with_the_reason_and_sends_nothing(
    client, invoice_editor, place_order, mailsim, settings, row_seen_during_layout
):
    # given: a live invoice template that leaves the VAT number off real documents
    settings.SHOP_VAT_NUMBER = "DE999888777"
    html = SHIPPED_HTML.replace(
        "{{ seller.vat_number }}", ONLY_THE_SAMPLES + "{{ seller.vat_number }}{% endif %}"
    )
    draft_published(client, html)
    row_seen_during_layout.clear()  # the check of the samples on publishing
    order = place_order(paid=True, number="3001")
    # when: the confirmation's delivery is handled
    [result] = email_events_handle([_delivery_of(order)])
    # then: laid out once, with no row locked; nothing sent; the reason on the attempt
    assert row_seen_during_layout == ["free"]
    assert mailsim.messages() == []
    confirmation = Notification.objects.get(order=order, kind=Notification.Kind.ORDER_CONFIRMATION)
    assert confirmation.status not in (Notification.Status.SENT, Notification.Status.SENDING), result
    [attempt] = DeliveryAttempt.objects.filter(notification=confirmation)
    assert "leaves out what INV-000001 must show" in attempt.error, attempt.error
    assert Invoice.objects.get(order=order).pdf_sha256 == ""


def test_a_layout_interrupted_by_the_moment_leaves_the_email_to_its_retry(place_order, mailsim, monkeypatch):
    # given: a live invoice template (laid out in the child), and a machine so busy the child
    # misses its wall-clock bound
    stored_version(shipped_with(body="<p>Laid out by the version.</p>"), published=True)
    order = place_order(paid=True, number="3002")
    with monkeypatch.context() as busy:
        busy.setattr(template_module, "LAYOUT_MAX_WALL_SECONDS", 0.01)
        [result] = email_events_handle([_delivery_of(order)])
    # then: retried later (not failed, not reviewed), nothing claimed, nothing sent
    assert isinstance(result, TransientError), result
    confirmation = Notification.objects.get(order=order, kind=Notification.Kind.ORDER_CONFIRMATION)
    assert confirmation.status == Notification.Status.PENDING
    assert not DeliveryAttempt.objects.filter(notification=confirmation).exists()
    # and its retry, the moment gone, sends it with the version's PDF
    assert email_events_handle([_delivery_of(order)]) == ["sent"]
    [message] = mailsim.messages()
    assert len(message["attachments"]) == 1
    assert Invoice.objects.get(order=order).pdf_template_version == 1
