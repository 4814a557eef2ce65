"""A reviewer's decisions that finish an email the pipeline could not finish by itself.

Retrying under the same key cannot finish an email whose earlier attempt may have reached
the customer where the provider cannot say so (SMTP; after a key conflict; later than the
provider remembers keys): the next delivery stops at review again, rightly. A person can:

- mark it sent, having checked at the provider (the evidence is written down);
- send it again under a new key, accepting in so many words that the customer may get a
  second email (the old key is kept, RetiredKey; attempts under it no longer count);
- correct a mistyped address and send it again (under a new key: the provider would answer
  the old key with the old send and never write to the new address);
- reject it with a comment (services.py), pending emails too.

Each writes its OperatorAction (who, when, why, what came of it) in the transaction that
changes the notification, and a send goes through a new outbox event, so it is published
whatever the broker does at that moment."""

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from messaging.outbox import event_record
from notifications.address_change import order_address_change
from notifications.audit import action_done, action_finish, action_start
from notifications.delivery.state import notification_set_status
from notifications.events import EVENT_OF_EMAIL_KIND
from notifications.models import Notification, OperatorAction, RetiredKey
from notifications.services import notification_idempotency_key
from operations.review.services import REVIEWABLE, ReviewRefused
from orders.models import Order

# The shortest evidence a "mark as sent" takes: a provider's message id and a time, at least.
MIN_EVIDENCE_CHARS = 10

SECOND_EMAIL_RISK = (
    "An earlier attempt may have reached the customer; sending under a new key means the "
    "provider cannot recognise it, so the customer may get this email twice."
)


def notification_mark_sent(
    *, notification_id: int, actor: User | None, actor_name: str, evidence: str
) -> str:
    """The reviewer checked at the provider that the email went out."""
    if len(evidence.strip()) < MIN_EVIDENCE_CHARS:
        raise ReviewRefused(
            "Marking an email sent needs the evidence you checked (for example the provider's "
            f"message id and what its log says), at least {MIN_EVIDENCE_CHARS} characters."
        )
    with transaction.atomic():
        notification = _locked_reviewable(notification_id, "marked sent")
        now = timezone.now()
        notification_set_status(
            notification,
            Notification.Status.SENT,
            now,
            reason=f"Marked sent by {actor_name}: {evidence}",
            sent_at=now,
            reviewer_comment=evidence,
        )
        action_done(
            action=OperatorAction.Action.MARK_SENT,
            actor=actor,
            actor_name=actor_name,
            notification=notification,
            comment=evidence,
            result="marked sent",
        )
    return "marked sent"


def notification_send_again(
    *,
    notification_id: int,
    actor: User | None,
    actor_name: str,
    comment: str,
    accept_second_email_risk: bool = False,
    new_address: str = "",
) -> str:
    """Send again under a new key; with `new_address`, to the corrected address."""
    if not comment.strip():
        raise ReviewRefused("Sending again needs a comment that says why.")
    if new_address:
        _address_check(new_address)
    elif not accept_second_email_risk:
        raise ReviewRefused(f"{SECOND_EMAIL_RISK} Confirm that you accept this to send it again.")
    with transaction.atomic():
        order = Order.objects.select_for_update(no_key=True).get(notifications__pk=notification_id)
        notification = _locked_reviewable(notification_id, "sent again")
        action = (
            OperatorAction.Action.CORRECT_ADDRESS if new_address else OperatorAction.Action.RESEND_NEW_KEY
        )
        record = action_start(
            action=action, actor=actor, actor_name=actor_name, notification=notification, comment=comment
        )
        if new_address:
            _address_correct(order, new_address, record)
        old_key, new_key = _key_renew(notification, record)
        notification_set_status(
            notification,
            Notification.Status.PENDING,
            timezone.now(),
            reason=f"Sent again by {actor_name} under a new key: {comment}",
            reviewer_comment=comment,
            idempotency_key=new_key,
            key_version=notification.key_version,
            key_first_attempt=notification.key_first_attempt,
            first_attempt_at=None,
        )
        event = event_record(
            event_type=EVENT_OF_EMAIL_KIND[notification.kind], aggregate_id=notification.event_aggregate_id
        )
        record.event_id = event.id
        record.save(update_fields=["event_id"])
        result = f"key v{notification.key_version} ({new_key}) replaces {old_key}; event {event.id}"
        action_finish(record, result=result + ("; the address was corrected" if new_address else ""))
    return "sent again"


def _address_correct(order: Order, new_address: str, record: OperatorAction) -> None:
    if new_address.lower() == order.customer_email.lower():
        raise ReviewRefused("The new address is the one the order already has.")
    order_address_change(order=order, address=new_address, record=record)


def _locked_reviewable(notification_id: int, what: str) -> Notification:
    notification = Notification.objects.select_for_update().filter(pk=notification_id).first()
    if notification is None:
        raise ReviewRefused(f"No notification has the id {notification_id}.")
    if notification.status not in REVIEWABLE:
        raise ReviewRefused(
            f"The notification is {notification.status}; only failed or needs-review emails are {what}."
        )
    return notification


def _address_check(address: str) -> None:
    try:
        validate_email(address)
    except ValidationError as exc:
        raise ReviewRefused(f"{address!r} is not an email address: {exc.messages[0]}") from exc


def _key_renew(notification: Notification, record: OperatorAction) -> tuple[str, str]:
    """Retire the current key and derive the next version's; the caller saves the fields."""
    old_key = notification.idempotency_key
    RetiredKey.objects.create(
        notification=notification,
        key=old_key,
        version=notification.key_version,
        first_attempt=notification.key_first_attempt,
        retired_at=record.created_at,
        action=record,
    )
    notification.key_version += 1
    notification.key_first_attempt = notification.attempt_count + 1
    return old_key, notification_idempotency_key(
        order_id=notification.order_id,
        kind=notification.kind,
        version=notification.key_version,
        subject_id=notification.subject_id,
    )
