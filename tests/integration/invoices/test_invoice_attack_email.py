"""Attacks on the invoice an email carries (a security review of the invoices): what an attempt
does when the stored PDF no longer matches the snapshot (where the worker lays a PDF out:
test_invoice_render_outside_claim.py). Defects are xfail(strict=True) naming them."""

from typing import cast

import pytest

from notifications.delivery.attempts import Claim
from notifications.delivery.calls import _render_and_send
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
