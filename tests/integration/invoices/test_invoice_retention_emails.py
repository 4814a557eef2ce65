"""What a reviewer's "send again" does to an old email whose invoice the retention job deleted,
through a real worker, RabbitMQ and the mail simulator. With the defaults the order's personal
data went long before (a year): the email is skipped for that. Where a deployment keeps orders
longer, the email is refused `attachment_deleted`, saying which document went and when, and
nothing reaches the provider: with its snapshot kept (the stored email names the document) and
with it cleared (rendered afresh, its earlier snapshot's entries still name it); never sent
without the document, never a crash."""

from datetime import timedelta

import pytest
from django.utils import timezone

from messaging.retention import retention_run
from notifications.delivery.rules import ORDER_ERASED_REASON
from notifications.models import Notification
from operations.review.resolve import notification_send_again
from orders.invoicing.retention import invoices_delete_expired
from orders.models import DeletedInvoice, Invoice, Order
from tests.integration.test_failure_classes import FAST_RETRIES, FINAL, _final
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

ELEVEN_YEARS = timedelta(days=11 * 366)


@pytest.fixture
def refused_confirmation(place_order, mailsim, start_worker) -> Notification:
    """A paid order whose confirmation (with its invoice) the provider refused: failed, waiting
    for a person, its snapshot naming the invoice."""
    mailsim.set_faults({"kind": "reject", "times": 1})
    start_worker(**FAST_RETRIES)
    order = place_order(paid=True)
    confirmation = _final(order)
    assert confirmation.status == "failed"
    [entry] = confirmation.email_attachments
    assert entry["invoice"] == str(Invoice.objects.get(order=order).pk)
    return confirmation


def _invoice_deleted(order_id) -> DeletedInvoice:
    Invoice.objects.filter(order_id=order_id).update(issued_at=timezone.now() - ELEVEN_YEARS)
    assert invoices_delete_expired(now=timezone.now(), batch_size=100, max_batches=10) == 1
    return DeletedInvoice.objects.get(order_id=order_id)


def _sent_again(notification: Notification) -> Notification:
    notification_send_again(
        notification_id=notification.pk,
        actor=None,
        actor_name="rita",
        comment="the customer asks for it again",
        accept_second_email_risk=True,
    )
    return wait_until(  # its new key's: set with `pending` by the send again
        lambda: Notification.objects.filter(pk=notification.pk, status__in=FINAL, key_version=2).first(),
        timeout=40,
        message="the email sent again to end",
    )


def _refused_for_its_deleted_document(notification: Notification, deleted: DeletedInvoice, mailsim) -> None:
    assert notification.status == "failed"
    assert notification.last_error.startswith("Not sent, the mail provider was not called:")
    assert (
        f"Invoice {deleted.number_text} was deleted on {deleted.deleted_at:%Y-%m-%d}"
        in notification.last_error
    )
    assert "end of its retention period" in notification.last_error
    attempt = notification.attempts.order_by("-number").first()
    assert attempt is not None
    assert (attempt.outcome, attempt.error.split(";")[0]) == ("permanent", "attachment_deleted")
    assert mailsim.messages() == []  # the refused first send is not kept, and nothing went since


def test_with_its_snapshot_kept_the_email_is_refused_for_its_deleted_invoice(refused_confirmation, mailsim):
    deleted = _invoice_deleted(refused_confirmation.order_id)
    # when
    again = _sent_again(refused_confirmation)
    # then
    _refused_for_its_deleted_document(again, deleted, mailsim)
    assert again.email_attachments == refused_confirmation.email_attachments  # the snapshot as it was


def test_with_its_snapshot_cleared_the_email_is_refused_not_sent_without_its_invoice(
    refused_confirmation, mailsim
):
    deleted = _invoice_deleted(refused_confirmation.order_id)
    # its snapshot cleared as the retention job clears it (its attachments' entries stay)
    Notification.objects.filter(pk=refused_confirmation.pk).update(
        email_subject="", email_text="", email_html="", email_content_hash=""
    )
    # when
    again = _sent_again(refused_confirmation)
    # then: not rendered again without it
    _refused_for_its_deleted_document(again, deleted, mailsim)
    assert (again.email_content_hash, again.email_html) == ("", "")


def test_with_the_defaults_the_order_was_erased_first_and_the_email_is_skipped(refused_confirmation, mailsim):
    Order.objects.filter(pk=refused_confirmation.order_id).update(created_at=timezone.now() - ELEVEN_YEARS)
    Invoice.objects.filter(order_id=refused_confirmation.order_id).update(
        issued_at=timezone.now() - ELEVEN_YEARS
    )
    # when: the whole job, then a reviewer's send again
    report = retention_run()
    again = _sent_again(refused_confirmation)
    # then
    assert (
        report.steps_deleted["order_personal_data"],
        report.steps_deleted["invoices_and_credit_notes"],
    ) == (
        1,
        1,
    )
    assert (again.status, again.last_error) == ("skipped", ORDER_ERASED_REASON)
    assert mailsim.messages() == []
