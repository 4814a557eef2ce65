"""The provider calls of a batch of claimed emails (handler.py): each claim's call to its
provider, at the same time where the provider's client takes calls at once, timed and
counted, after the sending rate's slot; none of it ever raises, since a claimed email must end
in a recorded outcome."""

import logging
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import cache

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from infra.crash_points import crash_point
from notifications.content.snapshot import snapshot_outbound
from notifications.delivery.attempts import Claim
from notifications.delivery.rate_limit import rate_slot_wait
from notifications.documents.attached import AttachmentChanged, AttachmentDeleted
from notifications.providers.base import MailProvider, Outcome, SendResult
from observability.logs import log_context
from observability.metrics import PROVIDER_CALL_SECONDS, PROVIDER_CALLS

logger = logging.getLogger(__name__)

RENDER_ERROR = "render_error"  # our own failure, before the provider was called
ATTACHMENT_CHANGED = AttachmentChanged.error_code  # a stored document no longer the snapshot's
ATTACHMENT_DELETED = AttachmentDeleted.error_code  # a document deleted after its retention period


def send_all(claims: list[tuple[Claim, uuid.UUID]], primary: MailProvider) -> list[tuple[SendResult, float]]:
    """Every claim's call to its provider (the claim's, else `primary`), at the same time
    where the providers' clients allow it (their capabilities). Never raises: a claimed email
    must end in a recorded outcome."""
    calls = [(claim, event_id, claim.provider or primary) for claim, event_id in claims]
    at_once = min(
        *(provider.capabilities.concurrent_calls for _, _, provider in calls), settings.DELIVERY_BATCH_SIZE
    )
    if len(claims) == 1 or at_once == 1:
        return [
            email_send_timed(claim, event_id=event_id, provider=provider)
            for claim, event_id, provider in calls
        ]
    futures = [
        _senders(at_once).submit(_send_one, claim, event_id, provider) for claim, event_id, provider in calls
    ]
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


def email_send_timed(
    claim: Claim, *, event_id: uuid.UUID, provider: MailProvider
) -> tuple[SendResult, float]:
    """The provider call for a claim, timed and counted; never raises (_render_and_send). Its
    lines carry the event's and the email's ids also from a thread of its own, so one event
    id finds every line of its email."""
    ids = {
        "event_id": event_id,
        "order_id": claim.order.pk,
        "notification_id": claim.notification.pk,
        "attempt": claim.attempt.number,
    }
    with log_context(**ids):
        rate_slot_wait(claim.call_not_before)  # a token lent ahead: its slot
        started = time.monotonic()
        result = _render_and_send(claim, event_id=str(event_id), provider=provider)
        elapsed = time.monotonic() - started
        PROVIDER_CALLS.labels(provider.name, result.outcome.value).inc()
        PROVIDER_CALL_SECONDS.labels(provider.name).observe(elapsed)
        logger.info(
            "provider said %s %s", result.outcome, result.http_status or "", extra={"provider": provider.name}
        )
    return result, elapsed


def _render_and_send(claim: Claim, *, event_id: str, provider: MailProvider) -> SendResult:
    """Never raises: whatever happens after the claim must end in a recorded outcome, or the
    notification would stay `sending` with nobody to finish it."""
    if claim.render_error:  # a template bug, a document deleted: nothing was sent, retrying will not help
        code = claim.render_error_code or RENDER_ERROR
        return SendResult(Outcome.PERMANENT, error_code=code, detail=claim.render_error)
    try:
        email = snapshot_outbound(claim.notification, to=claim.attempt.recipient, event_id=event_id)
    except AttachmentChanged as exc:  # never sent with other bytes than the snapshot names, nor without
        return SendResult(Outcome.PERMANENT, error_code=exc.error_code, detail=str(exc))
    try:
        return provider.send(email)
    except Exception as exc:  # includes the soft time limit: the request may have left
        logger.exception("event %s: the provider call was interrupted", event_id)
        return SendResult(Outcome.UNKNOWN, detail=f"the provider call was interrupted: {exc!r}")
