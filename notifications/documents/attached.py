"""The documents an email carries: found when its snapshot is taken (the invoices and credit
notes issued for this email: Invoice.email_kind and email_subject_id), rendered once before
the claim that takes the email (documents_render_outside_claim: no order is locked while a PDF
is laid out) and named in the snapshot with their sha256; every attempt attaches those same
bytes, read back and checked against it. An email whose document was deleted after its
retention period is refused with that reason (AttachmentDeleted), never sent without it."""

import hashlib
from typing import TYPE_CHECKING, Any

from notifications.content.errors import RenderError
from notifications.documents.pdf import CONTENT_TYPE, invoice_filename, invoice_pdf, invoices_render_pending
from notifications.documents.template import LayoutInterrupted
from notifications.models import Notification
from notifications.providers.base import Attachment
from orders.invoicing.retention import deleted_reason
from orders.models import DeletedInvoice, Invoice, Order

if TYPE_CHECKING:
    from notifications.delivery.claims import DocumentsFirst

# The emails that may carry a document: an invoice issued later has an email of its own; one
# issued with the order's placing rides on its
# confirmation, a credit note on its refund's email or on the cancellation's that tells it, an
# edit's credit note and new invoice on its "order changed" email.
CARRYING_KINDS = frozenset(
    {
        Notification.Kind.ORDER_CONFIRMATION,
        Notification.Kind.ORDER_REFUND,
        Notification.Kind.ORDER_CANCELLATION,
        Notification.Kind.ORDER_EDIT,
        Notification.Kind.ORDER_INVOICE,
    }
)


def attachments_take(notification: Notification, order: Order) -> list[dict[str, Any]]:
    """The snapshot's entries of the documents this email carries, each PDF rendered and stored
    if it was not yet. None for an order placed with the short body (it has no invoice)."""
    if notification.kind not in CARRYING_KINDS or order.content_version is None:
        return []
    documents = Invoice.objects.filter(
        order=order, email_kind=notification.kind, email_subject_id=notification.subject_id
    ).order_by("number")
    entries = []
    for document in documents:
        pdf = invoice_pdf(document)
        entries.append(
            {
                "invoice": str(document.pk),
                "filename": invoice_filename(document),
                "sha256": hashlib.sha256(pdf).hexdigest(),
                "size": len(pdf),
            }
        )
    return entries


def attachments_hash(content_hash: str, entries: list[dict[str, Any]]) -> str:
    """The email's content hash with its attachments: unchanged for an email without any."""
    if not entries:
        return content_hash
    parts = [content_hash, *(f"{entry['filename']}:{entry['sha256']}" for entry in entries)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class AttachmentChanged(ValueError):
    """A stored document no longer matches the snapshot: never sent with other bytes."""

    error_code = "attachment_changed"  # the attempt's, as calls.py records it


class AttachmentDeleted(AttachmentChanged):
    """A document the email carries was deleted at the end of its retention period: the email
    is never sent without it (nor with another)."""

    error_code = "attachment_deleted"


def attachments_deleted_check(entries: list[dict[str, Any]]) -> None:
    """Raise AttachmentDeleted if a snapshot's entry names a document the retention job deleted
    (orders/invoicing/retention.py). Also before an email is rendered afresh (its snapshot
    cleared): its earlier entries still name what it carried."""
    if not entries:
        return
    deleted = DeletedInvoice.objects.filter(pk__in=[e["invoice"] for e in entries]).order_by("number").first()
    if deleted is not None:
        raise AttachmentDeleted(
            f"{deleted_reason(deleted)} This email carries it and is not sent without it."
        )


def attachments_of(notification: Notification) -> tuple[Attachment, ...]:
    """The snapshot's documents as the provider gets them, the bytes checked against it."""
    entries = notification.email_attachments or []
    if not entries:
        return ()
    stored: dict[str, bytes] = {
        str(pk): bytes(pdf or b"")
        for pk, pdf in Invoice.objects.filter(pk__in=[e["invoice"] for e in entries]).values_list("pk", "pdf")
    }
    if len(stored) < len(entries):  # one is gone: say why when it is the retention's doing
        attachments_deleted_check(entries)
    attachments = []
    for entry in entries:
        content = stored.get(entry["invoice"], b"")
        if hashlib.sha256(content).hexdigest() != entry["sha256"]:
            raise AttachmentChanged(
                f"{entry['filename']} is no longer the file this email was rendered with: "
                "not sent with other bytes."
            )
        attachments.append(Attachment(filename=entry["filename"], content_type=CONTENT_TYPE, content=content))
    return tuple(attachments)


def documents_render_outside_claim(first: "DocumentsFirst") -> str:
    """Render and store the PDFs of the documents this email carries, each in its own short
    transaction, while no order is locked (the claim put the email off for it: DocumentsFirst).
    Returns "" when they are stored, or the reason a template does not render one (the email
    then fails as a template would); anything else raises, a layout interrupted by the moment
    (LayoutInterrupted: the same template may lay it out at the next try) too."""
    documents = Invoice.objects.filter(
        order_id=first.order_id, email_kind=first.kind, email_subject_id=first.subject_id
    )
    try:
        invoices_render_pending(documents)
    except LayoutInterrupted:
        raise
    except RenderError as exc:
        return str(exc)
    return ""
