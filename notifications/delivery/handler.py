"""Sending the emails events call for (the handler of the email event types,
notifications/events.py), after the dispatcher (messaging/dispatch.py). An email's delivery takes
the messages waiting behind it in its queue along (messaging/worker/companions.py); a single
delivery is a batch of one, and takes the same path.

Claim every notification in one transaction, under its order's row lock (the rules, lease +
attempt row) → call the provider for every claim with the notification's stable key, at the
same time where its client takes calls at once → record every outcome with its inbox row in
one transaction. For each email: its claim commits before its call, its outcome and inbox row
commit together, and its message is acked only after that commit (once this returns).

A crash anywhere leaves claims with open attempts, which the next delivery closes as unknown
and resends under the same key where the provider deduplicates (claims.py), or recorded
outcomes whose redelivered messages the inbox answers. docs/performance.md has the
measurements.
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, cast

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone
from psycopg.errors import LockNotAvailable

from infra.crash_points import crash_point
from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from messaging.errors import TransientError
from notifications.delivery.calls import send_all
from notifications.delivery.circuit import circuit_record
from notifications.delivery.claims import (
    AlreadyDone,
    Claim,
    ClaimRequest,
    DocumentsFirst,
    notification_claims,
)
from notifications.delivery.outcomes import OutcomeToRecord, notification_record_outcomes
from notifications.documents.attached import documents_render_outside_claim
from notifications.documents.template import LayoutInterrupted
from notifications.providers.base import MailProvider, Outcome, SendResult
from notifications.providers.catalogue import Providers, mail_providers

logger = logging.getLogger(__name__)

Result = str | BaseException  # what the task would have returned, or raised


def email_event_handle(*, envelope: Envelope, delivery: Delivery) -> str:
    """One delivery, as Celery's own task runs it (a redelivered message runs alone)."""
    [result] = email_events_handle([(envelope, delivery)])
    if isinstance(result, BaseException):
        raise result  # after the commits: the recorded state stands whatever the task does next
    return result


def email_events_handle(deliveries: Sequence[tuple[Envelope, Delivery]]) -> list[Result]:
    """Each delivery's result, in order: "sent" or why nothing was sent, or the exception that
    tells the task what to do (the caller retries or dead-letters by it)."""
    providers = mail_providers()
    requests = [
        ClaimRequest(envelope.aggregate_id, envelope.event_type, envelope.event_id, delivery.worker)
        for envelope, delivery in deliveries
    ]
    results = _claims_send_record(requests, deliveries, providers)
    # The emails whose documents have no PDF yet: rendered now, no order locked and the others'
    # outcomes recorded (their leases do not wait on a layout), then claimed again.
    later = [index for index, result in enumerate(results) if isinstance(result, DocumentsFirst)]
    if not later:
        return cast(list[Result], results)
    again: list[int] = []
    for index in later:
        tried = _documents_render(cast(DocumentsFirst, results[index]))
        if isinstance(tried, Exception):
            results[index] = tried  # its message is retried
        else:
            requests[index] = replace(requests[index], documents_failure=tried)
            again.append(index)
    if again:
        second = _claims_send_record([requests[i] for i in again], [deliveries[i] for i in again], providers)
        for index, result in zip(again, second, strict=True):
            results[index] = result
    # The second claim sends, or records why not: a render tried once is never put off again.
    assert not any(isinstance(result, DocumentsFirst) for result in results)
    return cast(list[Result], results)


def _documents_render(first: DocumentsFirst) -> str | Exception:
    """Empty, or why a template does not render the email's documents; the exception of anything
    else, as its task would have raised it. The time limits end the batch."""
    try:
        return documents_render_outside_claim(first)
    except SoftTimeLimitExceeded:
        raise
    except LayoutInterrupted as exc:  # the machine's moment, not the template: the message comes back
        return TransientError(f"A document this email carries was not laid out: {exc}")
    except Exception as exc:
        logger.warning("order %s's %s: documents not rendered", first.order_id, first.kind, exc_info=True)
        return exc


def _claims_send_record(
    requests: list[ClaimRequest], deliveries: Sequence[tuple[Envelope, Delivery]], providers: Providers
) -> list[Result | DocumentsFirst]:
    """Claim, call, record for these requests; a claim that wants its documents rendered first
    is returned as it is (DocumentsFirst)."""
    claim_step = partial(notification_claims, provider=providers.primary, fallback=providers.fallback)
    decisions = _together_or_alone(claim_step, requests, "claim")
    # A claimed delivery's result comes from its outcome, below; the others' from the claim.
    results: list[Result | DocumentsFirst] = [
        d.result if isinstance(d, AlreadyDone) else d for d in decisions
    ]
    claimed = [(index, decision) for index, decision in enumerate(decisions) if isinstance(decision, Claim)]
    if not claimed:
        return results
    many = len(deliveries) > 1  # the crash points of a batch of several have their own names
    if many:
        crash_point("worker.batch_after_claim")
    sends = send_all([(claim, requests[index].event_id) for index, claim in claimed], providers.primary)
    if any(result.outcome == Outcome.ACCEPTED for result, _ in sends):
        crash_point("worker.batch_after_sends" if many else "worker.after_provider_accept")
    outcomes = [
        OutcomeToRecord(
            claim=claim,
            result=result,
            event_type=requests[index].event_type,
            duration_ms=int(elapsed * 1000),
            final_attempt=deliveries[index][1].final_attempt,
        )
        for (index, claim), (result, elapsed) in zip(claimed, sends, strict=True)
    ]
    # An outcome that cannot be recorded leaves its attempt open: the message is retried, and
    # the next delivery treats the call as unknown (claims.py), as after a crash.
    record = partial(notification_record_outcomes, provider=providers.primary, fallback=providers.fallback)
    recorded = _together_or_alone(record, outcomes, "record", patient=partial(record, patient=True))
    for (index, _), result_of_email in zip(claimed, recorded, strict=True):
        results[index] = result_of_email
    _circuits_record(claimed, sends, providers.primary)
    crash_point("worker.batch_after_commit" if many else "worker.after_commit")
    logger.info("a batch of %d deliveries handled, %d sent to the provider", len(deliveries), len(claimed))
    return results


def email_batch_size() -> int:
    """The most email deliveries one batch may hold: as many as every provider that may be
    called takes calls at once, so a batch's calls go out in one round. The time limits are
    set for one call (notifications.checks); a provider that takes one call at a time (SMTP,
    Anymail) would otherwise send a batch's emails one after another past them."""
    providers = mail_providers()
    return min(settings.DELIVERY_BATCH_SIZE, *(p.capabilities.concurrent_calls for p in providers.in_order))


def _together_or_alone(
    step: Callable[[list[Any]], list[Any]],
    items: list[Any],
    name: str,
    *,
    patient: Callable[[list[Any]], list[Any]] | None = None,
) -> list[Any]:
    """A step for the whole batch in one transaction; if that transaction fails, for any
    reason (a row held by another session, a row in a shape the code does not expect), the
    step for each item alone, so one failing row does not hold back the others and only what
    fails again fails (its exception is its result, as the task would have raised it). The
    time limits are not a failure of a row: they end the batch. `patient`: the step once more
    for each item whose wait for a held row ended (DELIVERY_LOCK_WAIT_SECONDS), waiting as long
    as the time limit allows, after every other item was done."""
    try:
        return step(items)
    except SoftTimeLimitExceeded:
        raise
    except Exception as exc:
        if len(items) == 1:
            results = [exc]
        else:
            logger.warning("the batch's %s failed (%r): one delivery at a time", name, exc)
            results = [_alone(step, item) for item in items]
    if patient is None:
        return results
    return [
        _alone(patient, item) if _lock_wait_ended(result) else result
        for item, result in zip(items, results, strict=True)
    ]


def _alone(step: Callable[[list[Any]], list[Any]], item: Any) -> Any:
    try:
        [result] = step([item])
    except SoftTimeLimitExceeded:
        raise
    except Exception as exc:
        return exc
    return result


def _lock_wait_ended(result: object) -> bool:
    return isinstance(result, OperationalError) and isinstance(result.__cause__, LockNotAvailable)


def _circuits_record(
    claimed: list[tuple[int, Claim]], sends: list[tuple[SendResult, float]], primary: MailProvider
) -> None:
    """After the outcomes, each provider's circuit (routing.py: a batch may call two): its
    bookkeeping never holds them up, it never raises."""
    called: dict[str, list[tuple[Claim, SendResult]]] = {}
    for (_, claim), (result, _) in zip(claimed, sends, strict=True):
        called.setdefault((claim.provider or primary).name, []).append((claim, result))
    now = timezone.now()
    for provider, calls in called.items():
        circuit_record([result for _, result in calls], seen=calls[0][0].circuit, provider=provider, now=now)
