"""Sending the emails of a batch of deliveries (the worker forms batches of the messages it
has prefetched, messaging/worker/batching.py): the steps of handler.py, each step once for
the whole batch.

Claim every notification in one transaction → call the provider for every claim at the same
time, over its kept-alive connections → record every outcome with its inbox row in one
transaction. Every guarantee of the one-at-a-time path holds for each email: its claim is
committed before its provider call, its outcome and inbox row commit together, and its
message is acked only after that commit (by the worker's main process, once this returns).
Two commits per batch instead of two per email is what the batch buys.

A crash anywhere leaves what a crash of the one-at-a-time path leaves: claims with open
attempts, which the next delivery closes as unknown and resends under the same key where the
provider deduplicates (claims.py), or recorded outcomes whose redelivered messages the inbox
answers. docs/performance.md has the measurements.
"""

import logging
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import cache
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from infra.crash_points import crash_point
from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from notifications.delivery.circuit import circuit_record
from notifications.delivery.claims import (
    AlreadyDone,
    Claim,
    ClaimRequest,
    notification_claim,
    notification_claims,
)
from notifications.delivery.handler import email_send_timed
from notifications.delivery.outcomes import (
    OutcomeToRecord,
    notification_record_outcome,
    notification_record_outcomes,
)
from notifications.providers.base import MailProvider, Outcome, SendResult
from notifications.providers.catalogue import mail_provider

logger = logging.getLogger(__name__)

Decision = Claim | AlreadyDone | BaseException
Result = str | BaseException  # what the task would have returned, or raised


def email_events_handle_batch(deliveries: Sequence[tuple[Envelope, Delivery]]) -> list[Result]:
    """Each delivery's result, in order: what email_event_handle would have returned for it,
    or the exception it would have raised (the caller retries or dead-letters by it)."""
    provider = mail_provider()
    requests = [
        ClaimRequest(
            order_id=envelope.aggregate_id,
            event_type=envelope.event_type,
            event_id=envelope.event_id,
            worker=delivery.worker,
        )
        for envelope, delivery in deliveries
    ]
    decisions = _claim_all(requests, provider)
    results: list[Result] = [_result_without_send(decision) for decision in decisions]
    claimed = [(index, decision) for index, decision in enumerate(decisions) if isinstance(decision, Claim)]
    if not claimed:
        return results
    many = len(deliveries) > 1  # the crash points of a batch of several have their own names
    if many:
        crash_point("worker.batch_after_claim")
    sends = _send_all([(claim, requests[index].event_id) for index, claim in claimed], provider)
    if any(result.outcome == Outcome.ACCEPTED for result, _ in sends):
        crash_point("worker.batch_after_sends" if many else "worker.after_provider_accept")
    outcomes = [
        OutcomeToRecord(
            claim=claim,
            result=result,
            event_type=requests[index].event_type,
            to=claim.attempt.recipient,
            duration_ms=int(elapsed * 1000),
            final_attempt=deliveries[index][1].final_attempt,
        )
        for (index, claim), (result, elapsed) in zip(claimed, sends, strict=True)
    ]
    for (index, _), recorded in zip(claimed, _record_all(outcomes, provider), strict=True):
        results[index] = recorded
    # After the outcomes: the circuit's bookkeeping never holds them up (it never raises).
    circuit_record(
        [r for r, _ in sends], seen=claimed[0][1].circuit, provider=provider.name, now=timezone.now()
    )
    crash_point("worker.batch_after_commit" if many else "worker.after_commit")
    logger.info("a batch of %d deliveries handled, %d sent to the provider", len(deliveries), len(claimed))
    return results


def _result_without_send(decision: Decision) -> Result:
    """A claimed delivery's result comes from its outcome; the others' from the claim."""
    return decision.result if isinstance(decision, AlreadyDone) else decision  # type: ignore[return-value]


def _claim_all(requests: list[ClaimRequest], provider: MailProvider) -> list[Decision]:
    def alone(request: ClaimRequest) -> Decision:
        return notification_claim(
            order_id=request.order_id,
            event_type=request.event_type,
            event_id=request.event_id,
            worker=request.worker,
            provider=provider,
        )

    # Nothing of the batch was claimed if its transaction failed; each is then claimed alone.
    return _together_or_alone(
        lambda: notification_claims(requests, provider=provider), alone, requests, "claim"
    )


def _together_or_alone(
    together: Callable[[], list[Any]], alone: Callable[[Any], Any], items: list[Any], step: str
) -> list[Any]:
    """A step for the whole batch in one transaction; if that transaction fails, the step for
    each item alone, so one failing row does not hold back the others and only what fails
    again fails (its exception is its result, as the one-at-a-time task would have raised it)."""
    try:
        return list(together())
    except DatabaseError as exc:
        logger.warning("the batch's %s failed (%s): one delivery at a time", step, exc)
    results: list[Any] = []
    for item in items:
        try:
            results.append(alone(item))
        except Exception as exc:
            results.append(exc)
    return results


def _send_all(
    claims: list[tuple[Claim, uuid.UUID]], provider: MailProvider
) -> list[tuple[SendResult, float]]:
    """Every claim's provider call, at the same time where the provider's client allows it.
    Never raises: a claimed email must end in a recorded outcome."""
    at_once = min(provider.capabilities.concurrent_calls, settings.DELIVERY_BATCH_SIZE)
    if len(claims) == 1 or at_once == 1:
        return [email_send_timed(claim, event_id=event_id, provider=provider) for claim, event_id in claims]
    futures = [_senders(at_once).submit(_send_one, claim, event_id, provider) for claim, event_id in claims]
    try:
        wait(futures)
    except SoftTimeLimitExceeded:
        # The calls still running may reach the provider or not: unknown, as for one call.
        logger.error("the soft time limit interrupted a batch's provider calls")
    return [_result_of(future) for future in futures]


def _send_one(claim: Claim, event_id: uuid.UUID, provider: MailProvider) -> tuple[SendResult, float]:
    result, elapsed = email_send_timed(claim, event_id=event_id, provider=provider)
    if result.outcome == Outcome.ACCEPTED:
        crash_point("worker.batch_after_one_accept")  # other calls of the batch may be in flight
    return result, elapsed


def _result_of(future: Future[tuple[SendResult, float]]) -> tuple[SendResult, float]:
    if future.done() and future.exception() is None:
        return future.result()
    reason = future.exception() if future.done() else "the time limit ended the wait for it"
    return SendResult(Outcome.UNKNOWN, detail=f"the provider call was interrupted: {reason!r}"), 0.0


@cache
def _senders(at_once: int) -> ThreadPoolExecutor:
    # One per pool process (its provider is one), made after the fork; its threads share the
    # provider's session.
    return ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="provider-call")


def _record_all(outcomes: list[OutcomeToRecord], provider: MailProvider) -> list[Result]:
    def alone(outcome: OutcomeToRecord) -> Result:
        return notification_record_outcome(
            claim=outcome.claim,
            result=outcome.result,
            event_type=outcome.event_type,
            provider=provider,
            to=outcome.to,
            duration_ms=outcome.duration_ms,
            final_attempt=outcome.final_attempt,
        )

    # An outcome that cannot be recorded leaves its attempt open: the message is retried, and
    # the next delivery treats the call as unknown (claims.py), as after a crash.
    return _together_or_alone(
        lambda: notification_record_outcomes(outcomes, provider=provider), alone, outcomes, "record"
    )
