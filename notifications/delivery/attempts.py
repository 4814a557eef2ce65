"""The claim's writes once it decided to send: the lease, the email rendered and stored at
the first attempt (its snapshot), and the attempt row, in one round trip (statements.py)."""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from infra.keyed_hash import address_hash
from messaging.identity import current_process_name
from notifications.content.errors import RenderError
from notifications.content.snapshot import snapshot_exists, snapshot_take
from notifications.delivery.circuit import CLOSED, CircuitSeen
from notifications.delivery.claim_read import ClaimRead
from notifications.delivery.statements import attempt_start
from notifications.documents.attached import AttachmentDeleted
from notifications.models import DeliveryAttempt, EmailTemplateVersion, Notification
from notifications.providers.base import MailProvider
from orders.models import Order

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Claim:
    order: Order  # read under its row lock
    notification: Notification  # with its rendered email (snapshot), unless render_error
    attempt: DeliveryAttempt
    render_error: str = ""  # the email could not be rendered: nothing may be sent
    # Its error code, when not a template's failure: a document it carries was deleted.
    render_error_code: str = ""
    circuit: CircuitSeen = CLOSED  # the circuit of the provider called, as the claim read it
    probe: bool = False  # this call tests an open circuit (circuit.py)
    # The provider this claim calls (routing.py); None: the caller's only provider.
    provider: MailProvider | None = None
    # time.monotonic() before which the call must not be made: the sending rate's slot lent
    # ahead (rate_limit.py); 0: at once.
    call_not_before: float = 0.0


def attempt_start_claimed(
    read: ClaimRead,
    *,
    event_id: uuid.UUID,
    worker: str,
    now: datetime,
    provider: str,
    documents_failure: str = "",  # why a document it carries did not render: nothing is sent
) -> Claim:
    order, notification = read.order, read.notification
    fields: dict[str, Any] = {
        "status": Notification.Status.SENDING,
        "provider": provider,  # whose delivery events will speak about this email
        "status_changed_at": now,
        "lease_owner": current_process_name(),
        "lease_expires_at": now + timedelta(seconds=settings.NOTIFICATION_LEASE_SECONDS),
        "first_attempt_at": notification.first_attempt_at or now,
    }
    render_error_code, render_error = _snapshot_render(
        read, now, into=fields, documents_failure=documents_failure
    )
    # The notification's UPDATE and the attempt's INSERT in one round trip (statements.py).
    # The attempt keeps the address it goes to (the provider call sends to that one), and its
    # keyed hash: a complaint after the customer's erasure still suppresses the address.
    recipient, recipient_hash = order.customer_email, address_hash(order.customer_email)
    attempt_id, number = attempt_start(
        notification, event_id=event_id, worker=worker, to=(recipient, recipient_hash), now=now, fields=fields
    )
    for attname, value in fields.items():
        setattr(notification, attname, value)
    notification.attempt_count = number
    attempt = DeliveryAttempt(
        id=attempt_id,
        notification=notification,
        event_id=event_id,
        number=number,
        worker=worker,
        started_at=now,
        recipient=recipient,
        recipient_hash=recipient_hash,
        provider=provider,
    )
    return Claim(
        order=order,
        notification=notification,
        attempt=attempt,
        render_error=render_error,
        render_error_code=render_error_code,
        circuit=read.circuit_of(provider),
    )


def _snapshot_render(
    read: ClaimRead, now: datetime, *, into: dict[str, Any], documents_failure: str = ""
) -> tuple[str, str]:
    """The first attempt renders the email and stores it in the claim's own UPDATE (the
    snapshot's columns go `into` its fields); later attempts send what is stored. Returns why
    it did not render (an error code, "" for a template's failure, and the words), or ("", "")."""
    notification = read.notification
    if snapshot_exists(notification):
        return "", ""
    if documents_failure:  # a document's template fails: so does this email, as a template would
        logger.error("notification %s: its document does not render: %s", notification.pk, documents_failure)
        return "", documents_failure
    version = EmailTemplateVersion.objects.get(pk=read.template_id) if read.template_id else None
    try:
        names = snapshot_take(
            notification,
            read.order,
            content=read.content,
            about=read.about,
            shop=read.shop,
            version=version,
            now=now,
        )
    except RenderError as exc:
        logger.error("notification %s: the email does not render: %s", notification.pk, exc)
        return "", str(exc)
    except AttachmentDeleted as exc:
        logger.warning("notification %s: %s", notification.pk, exc)
        return exc.error_code, str(exc)
    for attname in names:
        into[attname] = getattr(notification, attname)
    return "", ""
