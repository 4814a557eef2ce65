"""Sending the email an event calls for (the handler of the email event types,
notifications/events.py), after the dispatcher's inbox check (messaging/dispatch.py).

Claim the notification under the order's row lock (re-reading the order, applying the
rules, lease + attempt row) → call the provider with the notification's stable key → record
the outcome and the inbox row in one transaction. The task acks only after this returns.
"""

import logging
import time
import uuid

from django.utils import timezone

from infra.crash_points import crash_point
from messaging.dispatch import Delivery
from messaging.envelope import Envelope
from notifications.content.snapshot import snapshot_outbound
from notifications.delivery.circuit import circuit_record
from notifications.delivery.claims import AlreadyDone, Claim, notification_claim
from notifications.delivery.outcomes import notification_record_outcome
from notifications.providers.base import MailProvider, Outcome, SendResult
from notifications.providers.catalogue import mail_provider
from observability.logs import log_context, log_context_add
from observability.metrics import PROVIDER_CALL_SECONDS, PROVIDER_CALLS

logger = logging.getLogger(__name__)

RENDER_ERROR = "render_error"  # our own failure, before the provider was called


def email_event_handle(*, envelope: Envelope, delivery: Delivery) -> str:
    provider = mail_provider()
    event_type = envelope.event_type
    claim = notification_claim(
        order_id=envelope.aggregate_id,
        event_type=event_type,
        event_id=envelope.event_id,
        worker=delivery.worker,
        provider=provider,
    )
    if isinstance(claim, AlreadyDone):
        logger.info("event handled without a send: %s", claim.result)
        return claim.result
    log_context_add(notification_id=claim.notification.pk, attempt=claim.attempt.number)
    result, elapsed = email_send_timed(claim, event_id=envelope.event_id, provider=provider)
    if result.outcome == Outcome.ACCEPTED:
        crash_point("worker.after_provider_accept")
    try:
        recorded = notification_record_outcome(
            claim=claim,
            result=result,
            event_type=event_type,
            provider=provider,
            to=claim.attempt.recipient,
            duration_ms=int(elapsed * 1000),
            final_attempt=delivery.final_attempt,
        )
    finally:  # after the outcome (which raises for a failure): the circuit never holds it up
        circuit_record([result], seen=claim.circuit, provider=provider.name, now=timezone.now())
    crash_point("worker.after_commit")
    return recorded


def email_send_timed(
    claim: Claim, *, event_id: uuid.UUID, provider: MailProvider
) -> tuple[SendResult, float]:
    """The provider call for a claim, timed and counted; never raises (_render_and_send). Its
    lines carry the event's and the email's ids also when a batch calls it from a thread of
    its own, so one event id still finds every line of its email."""
    ids = {
        "event_id": event_id,
        "order_id": claim.order.pk,
        "notification_id": claim.notification.pk,
        "attempt": claim.attempt.number,
    }
    with log_context(**ids):
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
    if claim.render_error:  # a template bug: nothing was sent, and retrying will not help
        return SendResult(Outcome.PERMANENT, error_code=RENDER_ERROR, detail=claim.render_error)
    email = snapshot_outbound(claim.notification, to=claim.attempt.recipient, event_id=event_id)
    try:
        return provider.send(email)
    except Exception as exc:  # includes the soft time limit: the request may have left
        logger.exception("event %s: the provider call was interrupted", event_id)
        return SendResult(Outcome.UNKNOWN, detail=f"the provider call was interrupted: {exc!r}")
