"""Small state writes shared by the claim and the outcome steps."""

import logging
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet

from notifications.models import DeliveryAttempt, Notification
from notifications.providers.base import MailProvider
from notifications.providers.catalogue import mail_provider
from observability.metrics import COMMIT_TO_SENT_SECONDS, NOTIFICATIONS_FINISHED

logger = logging.getLogger(__name__)

# Resend automatically only while the provider still remembers the key, with this margin.
IDEMPOTENCY_WINDOW_MARGIN = timedelta(minutes=5)


def status_fields(
    status: str, now: datetime, *, reason: str = "", detail: str = "", error_class: str = ""
) -> dict[str, str | datetime | None]:
    """What a move to `status` writes on the notification, whichever way it is written: the
    ORM's save below, or the accepted outcome's statement for a batch
    (notifications/delivery/statements.py, built from this). The lease is released; `reason`
    is what a reviewer reads and `error_class` the kind of failure it was (empty when none)."""
    return {
        "status": status,
        "status_changed_at": now,
        "lease_owner": "",
        "lease_expires_at": None,
        "error_class": error_class,
        "last_error": reason,
        "last_error_detail": detail,
        # Every way into needs_review is an outcome nobody saw: the provider's events may still
        # settle it (notifications/tracking/evidence.py) until this deadline.
        "evidence_deadline": (
            now + timedelta(hours=settings.PROVIDER_EVIDENCE_WAIT_HOURS)
            if status == Notification.Status.NEEDS_REVIEW
            else None
        ),
    }


def notification_set_status(
    notification: Notification,
    status: str,
    now: datetime,
    *,
    reason: str = "",
    detail: str = "",
    error_class: str = "",
    **fields: str | int | datetime | None,
) -> None:
    """Move to `status` (status_fields says what that writes), with any further `fields`."""
    written = {
        **status_fields(status, now, reason=reason, detail=detail, error_class=error_class),
        **fields,
    }
    for name, value in written.items():
        setattr(notification, name, value)
    if status in Notification.FINAL_STATUSES:
        transaction.on_commit(
            partial(notification_count_finished, notification.kind, status, now - notification.created_at)
        )
    notification.save(update_fields=list(written))


def notification_wait(notification: Notification, now: datetime, *, reason: str) -> None:
    """The email waits for the provider (circuit open or paused, no rate token): `pending`
    with the reason. An email already pending keeps its status_changed_at, so the age of the
    oldest unfinished email (its alert) still grows through an outage."""
    if notification.status != Notification.Status.PENDING:
        notification_set_status(notification, Notification.Status.PENDING, now, reason=reason)
        return
    notification.last_error, notification.error_class = reason, "waiting"
    Notification.objects.filter(pk=notification.pk).update(last_error=reason, error_class="waiting")


def notification_count_finished(kind: str, status: str, since_commit: timedelta) -> None:
    NOTIFICATIONS_FINISHED.labels(kind, status).inc()
    if status == Notification.Status.SENT:
        # The notification row was written in the same transaction as its event.
        COMMIT_TO_SENT_SECONDS.labels(kind).observe(since_commit.total_seconds())


def resend_is_safe(notification: Notification, provider: MailProvider, now: datetime) -> bool:
    """True while the provider is sure to recognise a resend under the same key."""
    window = provider.capabilities.key_window
    if window is None or notification.first_attempt_at is None:
        return False
    return now < notification.first_attempt_at + window - IDEMPOTENCY_WINDOW_MARGIN


# Every outcome after which the provider called may hold the email: no answer (unknown),
# still working on the key (in flight), a repeat of a key it accepted before (accepted
# earlier), something else sent under the key (key conflict). Each pins the email to that
# provider (routing.py): the other one would send a second copy. The rest say it has nothing.
PROVIDER_MAY_HAVE_IT = (
    DeliveryAttempt.Outcome.UNKNOWN,
    DeliveryAttempt.Outcome.IN_FLIGHT,
    DeliveryAttempt.Outcome.ACCEPTED_EARLIER,
    DeliveryAttempt.Outcome.KEY_CONFLICT,
)


def attempts_uncertain(notification: Notification) -> bool:
    """Whether an earlier attempt under the current key may have reached the customer.
    Attempts under a retired key do not count: a reviewer who sent the email again under a new
    key accepted that risk (operations/review/resolve.py)."""
    return bool(_uncertain_attempts(notification).exists())


def uncertain_at(notification: Notification) -> frozenset[str]:
    """The providers an earlier attempt under the current key may have reached (empty: none
    may). An attempt from before attempts named their provider went to the email's."""
    named = _uncertain_attempts(notification).values_list("provider", flat=True).distinct()
    return frozenset(name or notification.provider or mail_provider().name for name in named)


def _uncertain_attempts(notification: Notification) -> QuerySet[DeliveryAttempt]:
    """Those with an outcome that says the provider may have it, and those that never got one
    (their worker died during the call; a claim closes them as unknown, outcome_uncertain)."""
    return notification.attempts.filter(
        Q(outcome__in=PROVIDER_MAY_HAVE_IT) | Q(finished_at__isnull=True),
        number__gte=notification.key_first_attempt,
    )


def outcome_uncertain(notification: Notification, now: datetime) -> frozenset[str]:
    """The providers an earlier attempt may have reached: one whose outcome says so
    (PROVIDER_MAY_HAVE_IT), or one that started and never finished (its worker died during the
    call). Empty when no attempt may have been sent, the only case in which the email may go to
    any provider."""
    if notification.attempt_count == 0:
        return frozenset()  # the common first delivery: no query
    closed = notification.attempts.filter(finished_at__isnull=True).update(
        finished_at=now, outcome=DeliveryAttempt.Outcome.UNKNOWN, error="the worker stopped during the call"
    )
    if closed:
        logger.warning("notification %s: %d attempt(s) ended without an outcome", notification.pk, closed)
    return uncertain_at(notification)


def lease_is_live(notification: Notification, now: datetime) -> bool:
    """Only the lease decides, never a process table: the holder may be on another host (or
    in another container with the same host name and pid), where a local look says nothing,
    or says "gone" about a process that is calling the provider right now. A holder that died
    costs at most one lease length (NOTIFICATION_LEASE_SECONDS, docs/failure-handling.md)."""
    return notification.lease_expires_at is not None and notification.lease_expires_at > now
