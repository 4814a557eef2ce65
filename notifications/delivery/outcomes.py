"""Recording what the provider answered, in one transaction with the inbox row, and
deciding what happens next (the failure classes of docs/failure-handling.md)."""

import logging
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.db import transaction
from django.utils import timezone

from messaging.errors import (
    HandlingError,
    InFlightError,
    NeedsReviewError,
    PermanentError,
    RetriesExhaustedError,
    TransientError,
    WaitError,
)
from messaging.identity import current_process_name
from messaging.registry import EventType
from notifications.delivery import reasons
from notifications.delivery.circuit import probe_failed_wait
from notifications.delivery.claims import Claim
from notifications.delivery.state import (
    attempts_uncertain,
    notification_count_finished,
    notification_set_status,
    resend_is_safe,
)
from notifications.delivery.statements import Accepted, accepted_record, lock_wait_set
from notifications.models import DeliveryAttempt, Notification
from notifications.providers.base import MailProvider, Outcome, SendResult

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OutcomeToRecord:
    """One provider call's outcome."""

    claim: Claim
    result: SendResult
    event_type: EventType
    duration_ms: int
    final_attempt: bool


def notification_record_outcomes(
    outcomes: list[OutcomeToRecord],
    *,
    provider: MailProvider,
    fallback: MailProvider | None = None,
    patient: bool = False,
) -> list[str | HandlingError]:
    """Store each outcome with its inbox row: one commit for a batch, and one for a single
    delivery (a batch of one). Each is "sent" or the error that tells the task what to do,
    returned (not raised) for the caller to act on after the commit. `provider` is the one
    called where a claim names none; `fallback` the one that takes over (routing.py).
    `patient`: wait for a held row without DELIVERY_LOCK_WAIT_SECONDS (statements.lock_wait)."""
    accepted = [o for o in outcomes if o.result.outcome == Outcome.ACCEPTED]
    if len(accepted) == len(outcomes):  # the common case: one statement, atomic on its own
        _record_accepted(accepted, patient=patient)
        return [Notification.Status.SENT] * len(outcomes)
    with transaction.atomic():
        lock_wait_set(patient=patient)
        if accepted:
            _record_accepted(accepted, patient=patient)
        return [
            Notification.Status.SENT
            if outcome.result.outcome == Outcome.ACCEPTED
            else _record_not_accepted(outcome, provider=outcome.claim.provider or provider, fallback=fallback)
            for outcome in outcomes
        ]


def _record_accepted(outcomes: list[OutcomeToRecord], *, patient: bool) -> None:
    now = timezone.now()
    marked = accepted_record(
        [
            Accepted(
                attempt_id=o.claim.attempt.pk,
                notification_id=o.claim.notification.pk,
                event_id=o.claim.attempt.event_id,
                inbox_key=o.event_type.inbox_key,
                message_id=o.result.provider_message_id,
                http_status=o.result.http_status,
                duration_ms=o.duration_ms,
            )
            for o in outcomes
        ],
        now=now,
        patient=patient,
    )
    for sent in marked:  # not those another delivery had recorded first
        transaction.on_commit(
            partial(notification_count_finished, sent.kind, Notification.Status.SENT, now - sent.created_at)
        )


def _record_not_accepted(
    outcome: OutcomeToRecord, *, provider: MailProvider, fallback: MailProvider | None
) -> str | HandlingError:
    """Inside the outcomes' transaction. `provider`: the one this call went to."""
    claim, result = outcome.claim, outcome.result
    now = timezone.now()
    notification = Notification.objects.select_for_update().get(pk=claim.notification.pk)
    _finish_attempt(claim.attempt, result, now, outcome.duration_ms)
    if notification.status == Notification.Status.SENT:
        # another delivery recorded the send first; the provider key made it one email
        return Notification.Status.SENT
    if (
        notification.status != Notification.Status.SENDING
        or notification.lease_owner != current_process_name()
    ):
        # Our lease was taken over: the new holder finishes the notification, not us.
        logger.warning("notification %s: lease lost during attempt %d", notification.pk, claim.attempt.number)
        return InFlightError(reasons.LEASE_LOST)
    probing = claim.probe and result.outcome in (Outcome.TRANSIENT, Outcome.UNKNOWN)
    final_attempt = outcome.final_attempt and not probing
    next_status, error = _next_step(
        notification, result, provider, now, to=claim.attempt.recipient, final_attempt=final_attempt
    )
    if probing and next_status == Notification.Status.PENDING:
        if _fallback_takes_it(result, called=provider, fallback=fallback):
            error = WaitError(error.reason + reasons.TO_FALLBACK, retry_after=1)
        else:
            error = probe_failed_wait(error.reason)  # still down: it waits like every other email
    notification_set_status(
        notification,
        next_status,
        now,
        reason=error.reason,
        detail=error.detail,
        error_class=error.error_class,
    )
    return error


def _fallback_takes_it(result: SendResult, *, called: MailProvider, fallback: MailProvider | None) -> bool:
    """After a failed probe of the first provider, whose circuit is open again: an email it
    definitely refused goes to the fallback at its next claim, without waiting for the next
    probe (routing.py)."""
    return fallback is not None and called.name != fallback.name and result.outcome == Outcome.TRANSIENT


def _next_step(
    notification: Notification,
    result: SendResult,
    provider: MailProvider,
    now: datetime,
    *,
    to: str,
    final_attempt: bool,
) -> tuple[Notification.Status, HandlingError]:
    """What a failed attempt leads to: the next status, and the error that tells the task."""
    reason = reasons.reason_for_result(result, to=to)
    detail = _detail(result)
    match result.outcome:
        case Outcome.IN_FLIGHT:  # the provider is still working on our key: never a failure
            return Notification.Status.PENDING, InFlightError(reason, detail=detail)
        case Outcome.TRANSIENT if not final_attempt:
            return Notification.Status.PENDING, TransientError(
                reason, detail=detail, retry_after=result.retry_after
            )
        case Outcome.TRANSIENT:
            gave_up = reasons.gave_up(
                notification.attempt_count, since=notification.first_attempt_at, last=reason
            )
            if attempts_uncertain(notification):  # an earlier try may have gone out: a person checks
                return Notification.Status.NEEDS_REVIEW, NeedsReviewError(
                    gave_up + " " + reasons.UNCERTAIN, detail=detail
                )
            return Notification.Status.FAILED, RetriesExhaustedError(gave_up, detail=detail)
        case Outcome.UNKNOWN if not final_attempt and resend_is_safe(notification, provider, now):
            # The provider dedupes by key and still remembers it: the resend is safe.
            return Notification.Status.PENDING, TransientError(
                reason, detail=detail, retry_after=result.retry_after
            )
        case Outcome.UNKNOWN:
            return Notification.Status.NEEDS_REVIEW, NeedsReviewError(
                reason + reasons.RESEND_UNSAFE, detail=detail
            )
        case Outcome.ACCEPTED_EARLIER:  # never resent: only the provider's events say more
            return Notification.Status.NEEDS_REVIEW, NeedsReviewError(reason, detail=detail)
        case Outcome.KEY_CONFLICT:
            logger.error("notification %s: provider reports a key conflict: %s", notification.pk, detail)
            return Notification.Status.NEEDS_REVIEW, NeedsReviewError(reason, detail=detail)
        case _:  # Outcome.PERMANENT
            return Notification.Status.FAILED, PermanentError(reason, detail=detail)


def _finish_attempt(attempt: DeliveryAttempt, result: SendResult, now: datetime, duration_ms: int) -> None:
    DeliveryAttempt.objects.filter(pk=attempt.pk).update(
        finished_at=now,
        outcome=result.outcome.value,
        http_status=result.http_status,
        error="" if result.outcome == Outcome.ACCEPTED else _detail(result)[:2000],
        provider_message_id=result.provider_message_id,
        duration_ms=duration_ms,
    )


def _detail(result: SendResult) -> str:
    parts = [f"HTTP {result.http_status}" if result.http_status else "", result.error_code, result.detail]
    return "; ".join(part for part in parts if part)
