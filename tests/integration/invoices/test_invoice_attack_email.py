"""Attacks on the invoice an email carries (a security review of the invoices): what an attempt
does when the stored PDF no longer matches the snapshot, and the render's cost where the worker
pays it (inside its claim's transaction). Defects are xfail(strict=True) naming them."""

import time
from typing import cast

import pytest

from notifications.delivery.attempts import Claim
from notifications.delivery.calls import _render_and_send
from notifications.documents.pdf import invoice_pdf_render
from notifications.models import DeliveryAttempt, Notification
from notifications.providers.base import MailProvider, Outcome, SendResult
from orders.models import Invoice
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


class _Accepting:
    name = "accepting"
    sent: list = []

    def send(self, email):
        self.sent.append(email)
        return SendResult(Outcome.ACCEPTED, provider_message_id="m")


def test_a_changed_pdf_ends_the_attempt_with_a_permanent_outcome(place_order, mailsim, start_worker):
    order = place_order(paid=True)
    start_worker()
    wait_until(
        lambda: Notification.objects.filter(order=order, kind="order_confirmation", status="sent").exists(),
        timeout=40,
        message="the confirmation sent",
    )
    confirmation = Notification.objects.get(order=order, kind="order_confirmation")
    attempt = DeliveryAttempt.objects.filter(notification=confirmation).order_by("number").first()
    assert attempt is not None
    Invoice.objects.filter(order=order).update(pdf=b"%PDF-1.4 something else")
    provider = _Accepting()
    claim = Claim(order=order, notification=confirmation, attempt=attempt)
    result = _render_and_send(claim, event_id="e", provider=cast(MailProvider, provider))
    assert provider.sent == []
    assert result.outcome == Outcome.PERMANENT


def test_what_a_claim_pays_to_render_an_invoice(place_order, settings, capsys):
    """Not a defect by itself, a figure for the report: the confirmation's claim renders the PDF
    (attachments_take via snapshot_take) inside notification_claims' transaction, with the
    orders of the batch locked; a batch is up to DELIVERY_BATCH_SIZE emails."""
    small = Invoice.objects.get(order=place_order(paid=True, number="S"))
    invoice_pdf_render(small)  # WeasyPrint and its fonts loaded
    started = time.monotonic()
    for _ in range(5):
        invoice_pdf_render(small)
    small_seconds = (time.monotonic() - started) / 5
    lines = [
        {
            "sku": f"SKU-{n}",
            "name": f"Product {n} " + "with a long descriptive name " * 6,
            "quantity": 1,
            "unit_price": 100,
            "total": 100,
            "tax_rate": "0.19",
        }
        for n in range(250)
    ]
    big = Invoice.objects.get(
        order=place_order(
            paid=True, number="B", lines=lines, discounts=[], shipping=None, tax_total=None, total=25_000
        )
    )
    started = time.monotonic()
    size = len(invoice_pdf_render(big))
    big_seconds = time.monotonic() - started
    batch = settings.DELIVERY_BATCH_SIZE
    with capsys.disabled():
        print(
            f"\n[invoice attack] render: 2 lines {small_seconds:.3f} s; 250 lines {big_seconds:.2f} s, "
            f"{size:,} bytes; a batch of {batch} such confirmations ~{batch * big_seconds:.0f} s "
            f"in one claim transaction (soft time limit {settings.CELERY_TASK_SOFT_TIME_LIMIT} s)"
        )
    assert size < 1_000_000
