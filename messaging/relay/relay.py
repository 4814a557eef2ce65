"""The outbox relay: claim in one short transaction, publish outside it, mark in a second.

No row lock is held across broker I/O. A claim is a lease (`next_attempt_at` in the
future), so two relays never publish the same row at the same time, and rows of a relay
that died come back by themselves when the lease runs out. A row is marked published only
after the broker's confirm, and only if the broker did not return it as unroutable.

The sweep keeps PostgreSQL and the broker busy at the same time: a thread of its own
publishes a batch and collects its confirms while this thread claims the next batch, and
the next batch goes out before the confirmed one is marked. A crash between any two steps
loses nothing: whatever was claimed and not yet marked comes back when its lease runs out
(a copy the broker had confirmed is published once more; the consumers' inbox absorbs it).
"""

import logging
import time
import uuid
from dataclasses import dataclass, field

from django.conf import settings

from infra.crash_points import crash_point
from messaging.broker.topology import EVENTS_EXCHANGE
from messaging.models import OutboxEvent
from messaging.registry import event_types
from messaging.relay.claims import (
    claims_release,
    outbox_claim_batch,
    outbox_mark_published,
    publish_failures_record,
)
from messaging.relay.messages import OutgoingMessage
from messaging.relay.publisher import CONNECT_TIMEOUT_SECONDS, PublishError, PublishReport, process_publisher
from messaging.relay.publishing_thread import publishing_thread
from messaging.task_names import HANDLE_EVENT
from observability.metrics import RELAY_PUBLISHES

# tools/bench/measure.py calls the relay's statements through this module.
__all__ = ["outbox_claim_batch", "outbox_mark_published"]

logger = logging.getLogger(__name__)

# After the on-commit publish failed (a broken connection is tried once more on a fresh one
# inside the publish, which is how a cluster's lost node costs only a reconnect), the web
# process leaves publishing to the sweep for this long, so a broker that is really away gets
# one try per process per pause, not a connect timeout in every request.
FAST_PATH_PAUSE_SECONDS = 10.0
# The on-commit publish runs inside the web request: it waits briefly, and whatever is not
# confirmed by then is left to the sweep (a late confirm only means one extra copy).
FAST_PATH_CONFIRM_TIMEOUT_SECONDS = 2.0
_fast_path_paused_until = 0.0


@dataclass
class RelayReport:
    published: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    # Events the broker returned, refused or did not confirm, with the reason.
    failures: dict[uuid.UUID, str] = field(default_factory=dict)
    # The sweep stopped at the end of its time budget after a full batch: more may be waiting.
    out_of_time: bool = False


def relay_publish_committed(*, events: list[OutboxEvent]) -> None:
    """The on-commit fast path: publish the events this process just committed.

    Never raises: the order is committed and the request must still answer. Whatever is not
    published here stays in the outbox for the sweep. The rows are not read again: this
    process wrote them and holds their claim, so nobody else has published them.
    """
    global _fast_path_paused_until
    crash_point("api.after_commit")
    if time.monotonic() < _fast_path_paused_until:
        claims_release(
            [event.id for event in events], error="left to the sweep: the broker was unreachable recently"
        )
        return
    try:
        outbox_events_publish(events, confirm_timeout=FAST_PATH_CONFIRM_TIMEOUT_SECONDS)
    except Exception as exc:
        _fast_path_paused_until = time.monotonic() + FAST_PATH_PAUSE_SECONDS
        logger.warning("on-commit publish failed, the sweep will publish: %s", exc)


def relay_outbox_sweep(*, batch_size: int | None = None, time_budget_seconds: float = 4.0) -> RelayReport:
    """Publish what is still unpublished (crash leftovers, failed fast paths, back-offs).

    A batch is claimed while the one before is out for its confirms, and marked while the
    next one is out; see the module's docstring for why a crash in between loses nothing."""
    batch_size = batch_size or settings.OUTBOX_RELAY_BATCH_SIZE
    report = RelayReport()
    deadline = time.monotonic() + time_budget_seconds
    broker = publishing_thread()
    events = outbox_claim_batch(limit=batch_size)
    in_flight = broker.submit([outbox_message(event) for event in events]) if events else None
    while in_flight is not None:
        following, claimed_at = [], time.monotonic()
        out_of_time = len(events) == batch_size and claimed_at >= deadline
        if len(events) == batch_size and not out_of_time:
            following = outbox_claim_batch(limit=batch_size)  # while `events` wait for their confirms
        try:
            publish = in_flight.result()
        except PublishError as exc:
            _broker_unreachable(events, exc)
            claims_release([event.id for event in following])  # claimed ahead, never sent
            report.failed += len(events)
            report.errors.append(str(exc))
            break  # the broker is away: the rows have their back-off, try on the next sweep
        crash_point("relay.after_confirm")
        report.out_of_time, in_flight = out_of_time, None
        if following and _lease_outlasts_a_publish(claimed_at):
            in_flight = broker.submit([outbox_message(event) for event in following])
        elif following:  # the confirms took so long that the lease could run out in flight
            claims_release([event.id for event in following])
        batch = _publish_outcome_record(events, publish)  # while `following` is out for its confirms
        report.published += batch.published
        report.failed += batch.failed
        events = following
    return report


def _lease_outlasts_a_publish(claimed_at: float) -> bool:
    """A batch claimed ahead waited for the confirms of the one before; it may still go out
    only if its lease covers a whole publish (connect and confirms), so no other relay can
    claim the rows while they are out."""
    lease_left = settings.OUTBOX_CLAIM_LEASE_SECONDS - (time.monotonic() - claimed_at)
    return lease_left > CONNECT_TIMEOUT_SECONDS + settings.OUTBOX_CONFIRM_TIMEOUT_SECONDS


def outbox_events_publish(events: list[OutboxEvent], *, confirm_timeout: float | None = None) -> RelayReport:
    """Publish outbox events now, confirmed by the broker, and mark the confirmed ones
    published (a row already published stays as it was). The one way an outbox event is
    (re)published besides the sweep: the on-commit hook, reconcile and a reviewer's retry
    use it. Raises PublishError when the broker is unreachable; the rows get their back-off."""
    if not events:
        return RelayReport()
    messages = [outbox_message(event) for event in events]
    try:
        publish = process_publisher().publish(messages, confirm_timeout=confirm_timeout)
    except PublishError as exc:
        _broker_unreachable(events, exc)
        raise
    crash_point("relay.after_confirm")
    return _publish_outcome_record(events, publish)


def _broker_unreachable(events: list[OutboxEvent], exc: PublishError) -> None:
    publish_failures_record({event.id: f"broker unreachable: {exc}" for event in events})
    RELAY_PUBLISHES.labels("broker_error").inc(len(events))


def _publish_outcome_record(events: list[OutboxEvent], publish: PublishReport) -> RelayReport:
    """Mark what the broker confirmed, record what failed, and say so in metrics and logs."""
    outbox_mark_published(publish.confirmed)
    publish_failures_record(publish.failed)
    RELAY_PUBLISHES.labels("confirmed").inc(len(publish.confirmed))
    by_id = {event.id: event for event in events}
    if logger.isEnabledFor(logging.INFO):  # a batch's fields are not built for lines nobody writes
        for event_id in publish.confirmed:
            logger.info("event published", extra=_log_fields(by_id[event_id]))
    for event_id, reason in publish.failed.items():
        RELAY_PUBLISHES.labels(_failure_kind(reason)).inc()
        logger.error(
            "outbox event %s was not published: %s", event_id, reason, extra=_log_fields(by_id[event_id])
        )
    return RelayReport(published=len(publish.confirmed), failed=len(publish.failed), failures=publish.failed)


def _log_fields(event: OutboxEvent) -> dict[str, str]:
    # e.g. event_id and order_id: the same fields the worker's lines carry for this event.
    return {"event_id": str(event.id), f"{event.aggregate_type}_id": event.aggregate_id}


def _failure_kind(reason: str) -> str:
    for prefix, kind in (
        ("unroutable", "returned"),
        ("the broker refused", "nacked"),
        ("no confirm", "unconfirmed"),
    ):
        if reason.startswith(prefix):
            return kind
    return "broker_error"


def outbox_message(event: OutboxEvent) -> OutgoingMessage:
    """The task message of an outbox event: task id = message id = event id."""
    # The routing key is the event type; the registry knows every type the relay may send.
    # An unknown type is still published: the broker returns it, and we record why.
    if event.event_type not in event_types():
        logger.error("outbox event %s has unregistered type %r", event.id, event.event_type)
    return OutgoingMessage(
        event_id=event.id,
        task_name=HANDLE_EVENT,
        args=(event.payload,),
        exchange=EVENTS_EXCHANGE.name,
        routing_key=event.event_type,
    )
