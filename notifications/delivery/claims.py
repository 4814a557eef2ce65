"""The claim, in one short transaction before any provider call: each notification's lease
and attempt row, or why it is not sent. outcomes.py records what the provider answered, in a
second one; no transaction is open while the provider is called."""

import logging
import time
import uuid
from dataclasses import dataclass, replace
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from messaging.dispatch import DUPLICATE
from messaging.errors import HandlingError, InFlightError, NeedsReviewError, PermanentError, WaitError
from messaging.inbox import inbox_record
from messaging.registry import EventType
from notifications.delivery import reasons
from notifications.delivery.attempts import Claim, attempt_start_claimed
from notifications.delivery.circuit import PROBE
from notifications.delivery.claim_read import ClaimKey, ClaimRead, claim_reads
from notifications.delivery.routing import route_choose
from notifications.delivery.rules import Action, notification_decide
from notifications.delivery.state import (
    lease_is_live,
    notification_set_status,
    notification_wait,
    outcome_uncertain,
    resend_is_safe,
)
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import Notification
from notifications.providers.base import MailProvider
from notifications.providers.catalogue import Providers
from notifications.services import notification_create_pending
from notifications.tracking.suppression import suppression_found
from orders.events import AGGREGATE as ORDER_AGGREGATE
from orders.models import Order

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class AlreadyDone:
    result: str


@dataclass(frozen=True)
class DocumentsFirst:
    """Not claimed: a document this email carries has no PDF yet. A PDF is never laid out while
    the claim holds the order's row (a layout of an admin's template takes up to its child's
    20 s): the handler renders it with no row locked and claims the email again."""

    order_id: uuid.UUID
    kind: str
    subject_id: uuid.UUID | None


@dataclass(frozen=True)
class ClaimRequest:
    """One delivery of an email event: about an order (its confirmation, its cancellation), or
    about a shipment (its email), whose order the claim finds through the email's record."""

    aggregate_id: uuid.UUID
    event_type: EventType
    event_id: uuid.UUID
    worker: str
    order_id: uuid.UUID | None = None  # of a shipment's email: known once its record is read
    # After DocumentsFirst, the documents' render was tried: "" it worked, else why it failed (the
    # email is then not sent: the claim records the reason as a render's failure). None: not yet.
    documents_failure: str | None = None

    def __post_init__(self) -> None:
        if self.subject_id is None:
            object.__setattr__(self, "order_id", self.aggregate_id)

    @property
    def kind(self) -> str:
        return EMAIL_KIND_OF_EVENT[self.event_type.name]

    @property
    def subject_id(self) -> uuid.UUID | None:
        return None if self.event_type.aggregate == ORDER_AGGREGATE else self.aggregate_id

    @property
    def key(self) -> ClaimKey:
        assert self.order_id is not None, "a subject's order is found before its claim (with_orders)"
        return ClaimKey(self.order_id, self.kind, self.event_id, self.event_type.inbox_key, self.subject_id)


def with_orders(requests: list[ClaimRequest]) -> list[ClaimRequest]:
    """The requests about shipments with their orders, from their emails' records (one
    statement, only when there are such requests: an order's email costs nothing more). A
    request whose email has no record keeps no order: its claim says so."""
    subjects = [request.aggregate_id for request in requests if request.order_id is None]
    if not subjects:
        return requests
    orders = dict(Notification.objects.filter(subject_id__in=subjects).values_list("subject_id", "order_id"))
    return [
        replace(request, order_id=orders.get(request.aggregate_id)) if request.order_id is None else request
        for request in requests
    ]


@transaction.atomic
def notification_claims(
    requests: list[ClaimRequest], *, provider: MailProvider, fallback: MailProvider | None = None
) -> list[Claim | AlreadyDone | DocumentsFirst | HandlingError]:
    """Take each request's notification lease and write its attempt row, or say why not to
    send, all in one transaction: one commit for a batch, and one for a single delivery (a
    batch of one). Decisions that are errors are returned, not raised, so the state change
    they describe commits. One statement reads and locks every row first (claim_read.py).
    `provider` sends; `fallback` (MAIL_PROVIDER_FALLBACK) takes over while it cannot (routing.py)."""
    providers = Providers(provider, fallback)
    requests = with_orders(requests)
    # A second delivery of the same email in the batch reads again, after the first one's claim.
    first_of_email: dict[tuple[uuid.UUID, str, uuid.UUID | None], int] = {}
    for index, request in enumerate(requests):
        if request.order_id is not None:
            first_of_email.setdefault((request.order_id, request.kind, request.subject_id), index)
    firsts = sorted(first_of_email.values())
    reads = claim_reads([requests[i].key for i in firsts], **_circuit_names(providers))
    read_of = {firsts[position]: read for position, read in reads.items()}
    decisions: dict[int, Claim | AlreadyDone | DocumentsFirst | HandlingError] = {}
    for index in sorted(range(len(requests)), key=lambda i: str(requests[i].order_id)):
        # None: read alone (a repeat, or a row that is missing)
        decisions[index] = _claim_decide(requests[index], providers=providers, read=read_of.get(index))
    return [decisions[index] for index in range(len(requests))]


def _circuit_names(providers: Providers) -> dict[str, str]:
    return {
        "provider": providers.primary.name,
        "fallback": providers.fallback.name if providers.fallback else "",
    }


def _claim_decide(
    request: ClaimRequest, *, providers: Providers, read: ClaimRead | None
) -> Claim | AlreadyDone | DocumentsFirst | HandlingError:
    """The claim's reads and writes (`read` when the rows are read and locked already); the
    caller holds the transaction."""
    event_type, event_id = request.event_type, request.event_id
    if request.order_id is None:
        return PermanentError(
            reasons.SUBJECT_UNRECORDED.format(aggregate=event_type.aggregate, subject_id=request.aggregate_id)
        )
    read = read or _claim_read_alone(request, providers=providers)
    if read is None:
        return PermanentError(reasons.ORDER_MISSING.format(order_id=request.order_id))
    if read.processed:  # the dispatcher leaves the inbox check to this read (notifications/events.py)
        logger.info("event %s already processed by %s: duplicate ignored", event_id, event_type.inbox_key)
        return AlreadyDone(result=DUPLICATE)
    order, notification = read.order, read.notification
    now = timezone.now()
    status = notification.status
    if status in (Notification.Status.SENT, Notification.Status.SKIPPED):
        inbox_record(event_id=event_id, inbox_key=event_type.inbox_key, result=status)
        return AlreadyDone(result=f"already {status}")
    if status in (*Notification.NEEDS_PERSON_STATUSES, Notification.Status.REJECTED):
        logger.info("event %s: notification %s is %s, nothing sent", event_id, notification.pk, status)
        return AlreadyDone(result=reasons.AWAITING_REVIEW.format(status=status))
    if status == Notification.Status.SENDING and lease_is_live(notification, now):
        return InFlightError(f"Another worker ({notification.lease_owner}) is sending this email right now.")
    suppression = suppression_found(read.suppression_id, order)
    decision = notification_decide(notification=notification, order=order, suppression=suppression)
    holders = outcome_uncertain(notification, now)  # the providers an earlier attempt may have reached
    # Skipping is only honest if no earlier attempt may have gone out; otherwise the resend
    # under the same key tells (the provider replays it), or a person does.
    if decision.action == Action.SKIP and not holders:
        notification_set_status(notification, Notification.Status.SKIPPED, now, reason=decision.reason)
        inbox_record(event_id=event_id, inbox_key=event_type.inbox_key, result=Notification.Status.SKIPPED)
        return AlreadyDone(result=Notification.Status.SKIPPED)
    if decision.action == Action.WAIT and decision.retry_after:  # an earlier email must go first
        notification_wait(notification, now, reason=decision.reason)
        return WaitError(decision.reason, retry_after=decision.retry_after)
    if decision.action == Action.WAIT:
        return InFlightError(decision.reason)
    holder = _resend_holder(notification, holders, providers=providers, now=now) if holders else None
    if isinstance(holder, NeedsReviewError):
        return holder
    if read.documents_unrendered and request.documents_failure is None:
        return DocumentsFirst(order.id, notification.kind, notification.subject_id)
    return _claim_unless_waiting(read, request=request, now=now, providers=providers, holder=holder)


def _resend_holder(
    notification: Notification, holders: frozenset[str], *, providers: Providers, now: datetime
) -> MailProvider | NeedsReviewError:
    """The provider an email with an unknown outcome is resent through: the one that may have
    it, while it still recognises the key. Otherwise a person decides (needs_review)."""
    holder = providers.named(next(iter(holders))) if len(holders) == 1 else None
    if holder is not None and resend_is_safe(notification, holder, now):
        return holder
    stopped = notification.status == Notification.Status.SENDING
    reason = reasons.WORKER_STOPPED if stopped else reasons.UNCERTAIN
    error = NeedsReviewError(
        reason + (reasons.RESEND_UNSAFE if holder else reasons.holder_gone(sorted(holders)))
    )
    status_reason = {"reason": error.reason, "error_class": error.error_class}
    notification_set_status(notification, Notification.Status.NEEDS_REVIEW, now, **status_reason)
    return error


def _claim_unless_waiting(
    read: ClaimRead,
    *,
    request: ClaimRequest,
    now: datetime,
    providers: Providers,
    holder: MailProvider | None,
) -> Claim | WaitError:
    """The provider's sending rate and circuit breaker, and which provider (routing.py): a wait
    tries and counts nothing."""
    route = route_choose(read, providers=providers, holder=holder, now=now)
    if isinstance(route, WaitError):
        notification_wait(read.notification, now, reason=route.reason)
        return route
    claim = attempt_start_claimed(
        read,
        event_id=request.event_id,
        worker=request.worker,
        now=now,
        provider=route.provider.name,
        documents_failure=request.documents_failure or "",
    )
    not_before = time.monotonic() + route.wait_seconds if route.wait_seconds else 0.0
    return replace(claim, probe=route.gate == PROBE, provider=route.provider, call_not_before=not_before)


def _claim_read_alone(request: ClaimRequest, *, providers: Providers) -> ClaimRead | None:
    """The read of one delivery; on the rare path no notification yet (an event from before it
    existed, it is created), or no order (None)."""
    assert request.order_id is not None  # with_orders found it
    read = claim_reads([request.key], **_circuit_names(providers)).get(0)
    if read is not None or not Order.objects.filter(id=request.order_id).exists():
        return read
    notification_create_pending(order_id=request.order_id, kind=request.kind, subject_id=request.subject_id)
    return claim_reads([request.key], **_circuit_names(providers)).get(0)
