"""A customer's emails, erased at their request: what each email said and where it went, what
the provider answered and reported about it, and the words people wrote about it.

An email not yet sent is not sent: it is skipped with the reason. An email being sent right
now cannot be called back, so the erasure waits for it (EmailsInFlight) rather than erase
under a worker that will record its outcome. What stays: each email's kind, status, times,
idempotency key and provider message id, its attempts' outcomes and times, the provider's
events' kinds and times, the suppression as the address's keyed hash: the history a shop
needs to show that each email went once, without saying to whom.
"""

from datetime import datetime
from typing import Any

from django.db.models import Case, Q, QuerySet, Value, When

from infra.address_match import rows_of_address
from infra.addresses import address_forms
from infra.keyed_hash import address_hash
from infra.text_scrub import text_erase, text_scrubbed
from notifications.delivery.rules import ERASED_REASON
from notifications.delivery.state import notification_set_status
from notifications.models import (
    AddressCorrection,
    DeliveryAttempt,
    Notification,
    OperatorAction,
    ProviderEvent,
    ReconcileMismatch,
    RetiredKey,
)
from notifications.tracking.suppression import suppressions_of

_UNSENT = (Notification.Status.PENDING, Notification.Status.FAILED, Notification.Status.NEEDS_REVIEW)
Status = Notification.Status


class EmailsInFlight(Exception):
    """Emails of the customer are being sent right now; the erasure must wait for them."""

    def __init__(self, count: int, until: datetime):
        super().__init__(
            f"{count} email(s) of this customer are being sent right now (until {until:%H:%M:%S} at most)."
        )
        self.count = count
        self.until = until


def notifications_erase(
    *,
    order_ids: list,
    address: str,
    words: list[str],
    elsewhere: list[str],
    now: datetime,
    other_sends: bool,
    suppression: bool,
) -> dict[str, int]:
    """In the caller's transaction, which holds the orders' rows locked (so no claim starts on
    them meanwhile). Returns how many rows of each kind were changed. `words`: what people's and
    providers' words about these orders' emails may quote the customer by (the address, names,
    address lines). `elsewhere`: what is replaced in words about anything else, and in the
    corrections of other orders (the address, for an operator; nothing for an erasure a shop or
    an API client asked for: those rows are not theirs). `other_sends`: also every attempt and
    provider event to the address, whatever order they are of. `suppression`: the address's
    suppression keeps only its hash (which suppresses as well)."""
    emails = list(
        Notification.objects.select_for_update(of=("self",))
        .filter(order_id__in=order_ids)
        .order_by("order_id", "id")
    )
    sending = [
        n for n in emails if n.status == Status.SENDING and n.lease_expires_at and n.lease_expires_at > now
    ]
    if sending:
        raise EmailsInFlight(len(sending), max(n.lease_expires_at for n in sending if n.lease_expires_at))
    ids = [email.id for email in emails]
    changed = _emails_erase(emails, now=now)
    changed.update(_sends_erase(ids=ids, address=address, words=words, other_sends=other_sends))
    changed.update(
        _words_erase(
            order_ids=order_ids,
            ids=ids,
            address=address,
            words=words,
            elsewhere=elsewhere,
            suppression=suppression,
        )
    )
    return changed


def _emails_erase(emails: list[Notification], *, now: datetime) -> dict[str, int]:
    """What each email said, and why it was not sent; one not sent yet never will be."""
    already = Q(email_subject="", email_text="", email_html="", last_error_detail="", delivery_detail="")
    changed = {
        "emails": Notification.objects.filter(id__in=[email.id for email in emails])
        .exclude(already & Q(last_error__in=["", ERASED_REASON], reviewer_comment=""))
        .update(
            email_subject="",
            email_text="",
            email_html="",
            # An erasure's own reason stays: a second run must not blank why it was not sent.
            last_error=Case(When(last_error=ERASED_REASON, then=Value(ERASED_REASON)), default=Value("")),
            last_error_detail="",
            delivery_detail="",
            reviewer_comment="",
        ),
        "emails_not_sent": 0,
    }
    for email in emails:
        if email.status in _UNSENT or email.status == Status.SENDING:  # a lease that ran out
            notification_set_status(email, Status.SKIPPED, now, reason=ERASED_REASON)
            changed["emails_not_sent"] += 1
    return changed


def _sends_erase(*, ids: list[int], address: str, words: list[str], other_sends: bool) -> dict[str, int]:
    """The attempts and the provider's events of these emails (and to the address, with
    `other_sends`, by infra/address_match.py's rule): where each went and what the provider
    said. Their keyed hashes stay: a late complaint still suppresses the address. An event not
    applied yet names its email by key."""
    attempts_to, events_to = Q(pk__in=[]), Q(pk__in=[])
    if other_sends:
        attempts_to = Q(
            pk__in=rows_of_address(DeliveryAttempt.objects.all(), "recipient_hash", "recipient", address)
        )
        events_to = Q(
            pk__in=rows_of_address(ProviderEvent.objects.all(), "recipient_hash", "recipient", address)
        )
    attempts = DeliveryAttempt.objects.filter(Q(notification_id__in=ids) | attempts_to).exclude(
        recipient="", error=""
    )
    keys = [
        *Notification.objects.filter(id__in=ids).values_list("idempotency_key", flat=True),
        *RetiredKey.objects.filter(notification_id__in=ids).values_list("key", flat=True),
    ]
    mine = Q(notification_id__in=ids) | Q(notification__isnull=True, idempotency_key__in=keys)
    events = ProviderEvent.objects.filter(mine | events_to).exclude(payload={}, recipient="")
    return {
        "attempts": attempts.update(recipient="", error=""),
        "provider_events": events.update(
            recipient="", payload={}, description="", result=text_scrubbed("result", words)
        ),
    }


def _words_erase(
    *,
    order_ids: list,
    ids: list[int],
    address: str,
    words: list[str],
    elsewhere: list[str],
    suppression: bool,
) -> dict[str, int]:
    """The suppression, corrections, and people's and providers' words: those about these
    emails lose the customer's words, any other the address alone (`elsewhere`)."""
    suppressions = suppressions_of(address).exclude(address="", detail="", lift_comment="")
    if not suppression:
        suppressions = suppressions.none()
    corrections = corrections_of(address)
    if not elsewhere:  # an erasure within a shop's or a client's orders: theirs alone
        corrections = corrections.filter(order_id__in=order_ids)
    mine = Q(notification_id__in=ids)
    return {
        "suppressions": suppressions.update(
            address="", detail="", lift_comment="", address_hash=address_hash(address)
        ),
        "address_corrections": corrections.filter(_written("previous_address", address)).update(
            previous_address=""
        )
        + corrections.filter(_written("new_address", address)).update(new_address=""),
        "operator_actions": text_erase(
            OperatorAction.objects.all(), ("comment", "result"), mine=mine, words=words, elsewhere=elsewhere
        ),
        "reconcile_mismatches": text_erase(
            ReconcileMismatch.objects.all(),
            ("detail", "subject", "resolution"),
            mine=mine | Q(order_id__in=order_ids),
            words=words,
            elsewhere=elsewhere,
        ),
    }


def notifications_export(*, order_ids: list, address: str, elsewhere: list[str]) -> dict[str, Any]:
    """Each email sent or meant for the customer, with what the provider reported about it, and
    corrections of the address; with `elsewhere` (an operator's export: the address), the
    address's suppression and its corrections in any order."""
    emails = []
    for email in Notification.objects.filter(order_id__in=order_ids).order_by("created_at"):
        emails.append(
            {
                "order": str(email.order_id),
                "email": email.get_kind_display(),
                "status": email.get_status_display(),
                "why it was not sent, or what went wrong": email.last_error,
                "sent at": email.sent_at.isoformat() if email.sent_at else None,
                "what the provider said happened to it": email.get_delivery_status_display(),
                "subject": email.email_subject,
                "text": email.email_text,
                "attempts to send it": [
                    {"at": a.started_at.isoformat(), "to": a.recipient, "outcome": a.get_outcome_display()}
                    for a in email.attempts.order_by("number")
                ],
                "the provider's reports": [
                    {"at": e.occurred_at.isoformat(), "what": e.get_kind_display(), "details": e.description}
                    for e in email.provider_events.order_by("occurred_at")
                ],
            }
        )
    suppressions, corrections = suppressions_of(address), corrections_of(address)
    if not elsewhere:  # an API client's: what its orders hold, nothing beyond them
        suppressions, corrections = suppressions.none(), corrections.filter(order_id__in=order_ids)
    return {
        "emails": emails,
        "suppression (no email is sent to the address)": [
            {
                "since": s.created_at.isoformat(),
                "why": s.get_reason_display(),
                "the provider's words": s.detail,
                "lifted at": s.lifted_at.isoformat() if s.lifted_at else None,
            }
            for s in suppressions
        ],
        "address corrections": [
            {"from": c.previous_address, "to": c.new_address, "at": c.corrected_at.isoformat()}
            for c in corrections
        ],
    }


def corrections_of(address: str) -> QuerySet[AddressCorrection]:
    """The corrections from or to the address, in any case and either form of its domain."""
    return AddressCorrection.objects.filter(
        _written("previous_address", address) | _written("new_address", address)
    )


def _written(field: str, address: str) -> Q:
    written = Q(pk__in=[])
    for form in address_forms(address):
        written |= Q(**{f"{field}__iexact": form})
    return written
