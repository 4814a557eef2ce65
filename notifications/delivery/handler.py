"""Handling one event delivery.

Effect-once types (customer emails), DESIGN §2: inbox check → claim the notification under
the order's row lock (re-reading the order, applying the rules, lease + attempt row) → call
the provider with the notification's stable key → record the outcome and the inbox row in
one transaction. At-least-once types run their handler directly. The task acks only after
this returns.
"""

import logging
import time
import uuid
from dataclasses import dataclass

from infra.crash_points import crash_point
from notifications.delivery import reasons
from notifications.delivery.claims import AlreadyDone, Claim, notification_claim
from notifications.delivery.emails import email_render
from notifications.delivery.errors import PermanentError
from notifications.delivery.outcomes import notification_record_outcome
from notifications.envelope import Envelope, EnvelopeError, envelope_parse
from notifications.models import ProcessedEvent
from notifications.providers.base import MailProvider, Outcome, SendResult, mail_provider
from notifications.registry import EVENT_TYPES, Guarantee
from observability.logs import log_context, log_context_add
from observability.metrics import PROVIDER_CALL_SECONDS, PROVIDER_CALLS

logger = logging.getLogger(__name__)

RENDER_ERROR = "render_error"  # our own failure, before the provider was called


@dataclass(frozen=True)
class Delivery:
    """What the task knows about this delivery of the message."""

    worker: str
    retries: int
    max_retries: int

    @property
    def final_attempt(self) -> bool:
        return self.retries >= self.max_retries


def event_handle(*, raw_envelope: object, delivery: Delivery) -> str:
    try:
        envelope = envelope_parse(raw_envelope)
    except EnvelopeError as exc:
        raise PermanentError(str(exc), detail=repr(raw_envelope)[:500]) from exc
    with log_context(event_id=envelope.event_id, order_id=envelope.order_id):
        return _handle(envelope, delivery)


def _handle(envelope: Envelope, delivery: Delivery) -> str:
    event_type = EVENT_TYPES[envelope.event_type]
    if event_type.guarantee == Guarantee.AT_LEAST_ONCE:
        return _at_least_once_handle(envelope)
    if ProcessedEvent.objects.filter(event_id=envelope.event_id, handler=event_type.handler).exists():
        logger.info(
            "event %s already processed by %s: duplicate ignored", envelope.event_id, event_type.handler
        )
        return "duplicate"
    provider = mail_provider()
    claim = notification_claim(
        order_id=envelope.order_id,
        event_type=event_type,
        event_id=envelope.event_id,
        worker=delivery.worker,
        provider=provider,
    )
    if isinstance(claim, AlreadyDone):
        logger.info("event handled without a send: %s", claim.result)
        return claim.result
    log_context_add(notification_id=claim.notification.pk, attempt=claim.attempt.number)
    started = time.monotonic()
    result = _render_and_send(claim, event_id=str(envelope.event_id), provider=provider)
    elapsed = time.monotonic() - started
    PROVIDER_CALLS.labels(provider.name, result.outcome.value).inc()
    PROVIDER_CALL_SECONDS.labels(provider.name).observe(elapsed)
    logger.info(
        "provider said %s %s", result.outcome, result.http_status or "", extra={"provider": provider.name}
    )
    if result.outcome == Outcome.ACCEPTED:
        crash_point("worker.after_provider_accept")
    recorded = notification_record_outcome(
        claim=claim,
        result=result,
        event_type=event_type,
        provider=provider,
        to=claim.order.customer_email,
        duration_ms=int(elapsed * 1000),
        final_attempt=delivery.final_attempt,
    )
    crash_point("worker.after_commit")
    return recorded


def _render_and_send(claim: Claim, *, event_id: str, provider: MailProvider) -> SendResult:
    """Never raises: whatever happens after the claim must end in a recorded outcome, or the
    notification would stay `sending` with nobody to finish it."""
    try:
        email = email_render(notification=claim.notification, order=claim.order, event_id=event_id)
    except Exception as exc:  # a template bug: nothing was sent, and retrying will not help
        logger.exception("event %s: the email could not be rendered", event_id)
        return SendResult(Outcome.PERMANENT, error_code=RENDER_ERROR, detail=f"{exc!r}")
    try:
        return provider.send(email)
    except Exception as exc:  # includes the soft time limit: the request may have left
        logger.exception("event %s: the provider call was interrupted", event_id)
        return SendResult(Outcome.UNKNOWN, detail=f"the provider call was interrupted: {exc!r}")


def _at_least_once_handle(envelope: Envelope) -> str:
    from orders.models import Order  # orders imports notifications to write its events
    from orders.sales import daily_sales_count_payment

    handlers = {"daily_sales_count": daily_sales_count_payment}
    order = _order_or_permanent(Order, envelope.order_id)
    handlers[EVENT_TYPES[envelope.event_type].handler](order=order, day=envelope.occurred_at.date())
    return "counted"


def _order_or_permanent(model, order_id: uuid.UUID):
    order = model.objects.filter(id=order_id).first()
    if order is None:
        raise PermanentError(reasons.ORDER_MISSING.format(order_id=order_id))
    return order
